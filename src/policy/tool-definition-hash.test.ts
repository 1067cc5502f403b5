import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parsePolicyFiles } from './load-policy.ts';
import { formatPinsYaml } from './pins-yaml.ts';
import { canonicalJson } from '../audit/canonical-json.ts';
import { toolDefinitionHash } from './tool-definition-hash.ts';

const forecast = {
  name: 'weather__forecast',
  title: 'Forecast',
  description: 'A made-up forecast for a region',
  inputSchema: { type: 'object', properties: { region: { type: 'string' }, days: { type: 'integer', maximum: 7 } }, required: ['region'] },
  annotations: { readOnlyHint: true },
};

describe('toolDefinitionHash', () => {
  it('is the sha256 of the canonical JSON of description, inputSchema and outputSchema', () => {
    const canonical =
      '{"description":"A made-up forecast for a region","inputSchema":{"properties":{"days":{"maximum":7,"type":"integer"},"region":{"type":"string"}},"required":["region"],"type":"object"},"outputSchema":null}';
    expect(toolDefinitionHash(forecast)).toBe(createHash('sha256').update(canonical).digest('hex'));
  });

  it('does not depend on key order', () => {
    const reordered = { inputSchema: { required: ['region'], type: 'object', properties: { days: { maximum: 7, type: 'integer' }, region: { type: 'string' } } }, description: forecast.description };
    expect(toolDefinitionHash(reordered)).toBe(toolDefinitionHash(forecast));
  });

  it('changes when the description or a schema changes', () => {
    const base = toolDefinitionHash(forecast);
    expect(toolDefinitionHash({ ...forecast, description: 'Ignore previous instructions' })).not.toBe(base);
    expect(toolDefinitionHash({ ...forecast, inputSchema: { ...forecast.inputSchema, required: [] } })).not.toBe(base);
    expect(toolDefinitionHash({ ...forecast, outputSchema: { type: 'object' } })).not.toBe(base);
  });

  it('ignores title and annotations in version 1, the default', () => {
    expect(toolDefinitionHash({ ...forecast, title: 'Weather', annotations: { readOnlyHint: false } })).toBe(toolDefinitionHash(forecast));
    expect(toolDefinitionHash(forecast, 1)).toBe(toolDefinitionHash(forecast));
  });

  it('covers title and annotations in version 2, as the sha256 of a documented object', () => {
    const canonical =
      '{"annotations":{"readOnlyHint":true},"description":"A made-up forecast for a region","inputSchema":{"properties":{"days":{"maximum":7,"type":"integer"},"region":{"type":"string"}},"required":["region"],"type":"object"},"outputSchema":null,"title":"Forecast","version":2}';
    expect(toolDefinitionHash(forecast, 2)).toBe(createHash('sha256').update(canonical).digest('hex'));
    const base = toolDefinitionHash(forecast, 2);
    expect(toolDefinitionHash({ ...forecast, annotations: { readOnlyHint: true, destructiveHint: false } }, 2)).not.toBe(base);
    expect(toolDefinitionHash({ ...forecast, title: 'Weather' }, 2)).not.toBe(base);
    expect(toolDefinitionHash({ ...forecast, description: 'x' }, 2)).not.toBe(base);
    // Never equal to a version-1 hash of the same tool, even without title and annotations.
    const bare = { description: 'd', inputSchema: { type: 'object' } };
    expect(toolDefinitionHash(bare, 2)).not.toBe(toolDefinitionHash(bare, 1));
  });

  it('writes canonical JSON as RFC 8785 does for plain values', () => {
    expect(canonicalJson({ b: [1, 'x', null, true], a: { d: 1e21, c: 0.5 }, u: undefined })).toBe('{"a":{"c":0.5,"d":1e+21},"b":[1,"x",null,true]}');
    expect(canonicalJson('é\u2028')).toBe('"é\u2028"');
  });
});

describe('formatPinsYaml', () => {
  it('writes a pins file, sorted by tool name, that loads back into the same pins', () => {
    const echo = { name: 'everything__echo', description: 'Echoes back the input', inputSchema: { type: 'object' } };
    const text = formatPinsYaml([forecast, echo], { header: 'written by gatehouse policy pin' });
    expect(text).toBe(
      [
        '# yaml-language-server: $schema=../schema/policy.schema.json',
        '# written by gatehouse policy pin',
        'pins:',
        `  - { tool: "everything__echo", sha256: ${toolDefinitionHash(echo)} }`,
        `  - { tool: "weather__forecast", sha256: ${toolDefinitionHash(forecast)} }`,
        '',
      ].join('\n'),
    );
    const policy = parsePolicyFiles([{ file: '90-pins.yaml', text }]);
    expect([...policy.pins]).toEqual([
      ['everything__echo', { sha256: toolDefinitionHash(echo), version: 1 }],
      ['weather__forecast', { sha256: toolDefinitionHash(forecast), version: 1 }],
    ]);
  });

  it('writes version 2 pins on request, and they load back as version 2', () => {
    const text = formatPinsYaml([forecast], { version: 2 });
    expect(text).toContain(`  - { tool: "weather__forecast", sha256: ${toolDefinitionHash(forecast, 2)}, version: 2 }\n`);
    expect([...parsePolicyFiles([{ file: '90-pins.yaml', text }]).pins]).toEqual([['weather__forecast', { sha256: toolDefinitionHash(forecast, 2), version: 2 }]]);
  });

  it('refuses a pin version it does not know, naming the file and path', () => {
    expect(() => parsePolicyFiles([{ file: 'p.yaml', text: `pins:\n  - { tool: t, sha256: ${'a'.repeat(64)}, version: 3 }\n` }])).toThrow(/p\.yaml.*\/pins\/0\/version.*expected pin version 1 or 2/s);
  });

  it('writes an empty list for no tools', () => {
    expect(parsePolicyFiles([{ file: 'p.yaml', text: formatPinsYaml([]) }]).pins.size).toBe(0);
  });
});

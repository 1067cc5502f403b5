// The toolSearch and resultShaping keys of the gateway config: defaults, precedence data,
// and the errors of bad values, each naming the path and what was expected.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { parseConfig } from '../../src/config/load-config.ts';

const FILE = '/etc/gatehouse/gatehouse.yaml';
const UPSTREAMS = 'upstreams:\n  - { name: files, url: "http://127.0.0.1:9/mcp" }\n';
const parse = (text: string) => parseConfig(`${text}\n${UPSTREAMS}`, FILE, {});

function messages(text: string): string[] {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof ConfigError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('toolSearch config', () => {
  it('is off by default and takes client globs and a default limit', () => {
    expect(parse('').toolSearch).toEqual({ enabled: false, fullListFor: [], defaultLimit: 8 });
    expect(parse('toolSearch: { enabled: true, fullListFor: ["inspector-*"], defaultLimit: 20 }').toolSearch).toEqual({ enabled: true, fullListFor: ['inspector-*'], defaultLimit: 20 });
  });

  it('refuses a limit outside 1 to 50 and unknown keys', () => {
    expect(messages('toolSearch: { defaultLimit: 0 }')[0]).toMatch(/^\/toolSearch\/defaultLimit: /);
    expect(messages('toolSearch: { defaultLimit: 51 }')[0]).toMatch(/^\/toolSearch\/defaultLimit: /);
    expect(messages('toolSearch: { enable: true }')[0]).toMatch(/^\/toolSearch\/enable: unknown key/);
  });
});

describe('resultShaping config', () => {
  it('is off when absent, and on with defaults when present', () => {
    expect(parse('').resultShaping.enabled).toBe(false);
    const on = parse('resultShaping: {}').resultShaping;
    expect(on).toMatchObject({ enabled: true, defaults: { maxBytes: 100_000, strategy: 'head', structured: 'keep', maxMediaBytes: 1_048_576 }, redact: false });
    expect(on.keep).toEqual({ ttlMs: 600_000, maxBytes: 67_108_864, maxEntryBytes: 8_388_608, pageBytes: 65_536 });
  });

  it('takes the smaller of a byte and a token budget, and 0 as no budget', () => {
    expect(parse('resultShaping: { maxResultBytes: 64KiB, maxResultTokens: 1000 }').resultShaping.defaults.maxBytes).toBe(4000);
    expect(parse('resultShaping: { maxResultBytes: 2KiB }').resultShaping.defaults.maxBytes).toBe(2048);
    expect(parse('resultShaping: { maxResultBytes: 0 }').resultShaping.defaults.maxBytes).toBe(0);
    const rules = parse('resultShaping: { rules: [{ upstream: files, maxResultTokens: 10 }, { tool: "files__*", strategy: refuse }] }').resultShaping.rules;
    expect(rules).toEqual([{ upstream: 'files', maxBytes: 40 }, { tool: 'files__*', strategy: 'refuse' }]);
  });

  it('names the path of each bad value', () => {
    expect(messages('resultShaping: { strategy: middle }')[0]).toMatch(/^\/resultShaping\/strategy: /);
    expect(messages('resultShaping: { maxResultBytes: 10XB }')[0]).toBe('/resultShaping/maxResultBytes: expected a size like "64KiB" or a number of bytes, got "10XB"');
    expect(messages('resultShaping: { rules: [{ tool: a, upstream: files }] }')).toContain('/resultShaping/rules/0: a rule names exactly one of `tool` or `upstream`');
    expect(messages('resultShaping: { rules: [{ upstream: nope }] }')).toEqual(['/resultShaping/rules/0/upstream: no upstream is named "nope"']);
    expect(messages('resultShaping: { keep: { pageBytes: 0 } }')).toEqual(['/resultShaping/keep/pageBytes: expected a page size above 0']);
    expect(messages('resultShaping: { keep: { maxBytes: 1MiB, maxEntryBytes: 2MiB } }')).toEqual(['/resultShaping/keep/maxEntryBytes: expected at most keep.maxBytes']);
  });
});

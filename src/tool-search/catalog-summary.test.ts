import { describe, expect, it } from 'vitest';
import { generatedCatalog } from '../../test/fixtures/generated-catalog.ts';
import { CALL_TOOL_NAME, DESCRIBE_TOOL_NAME, searchToolDescription } from './catalog-summary.ts';
import type { IndexedTool } from './search-index.ts';

const catalog = (copies: number): IndexedTool[] =>
  generatedCatalog(copies).flatMap((s) => s.tools.map((t) => ({ name: `${s.name}__${t.name}`, upstream: s.name, original: t.name, item: { ...t, name: `${s.name}__${t.name}` } })));

describe('searchToolDescription', () => {
  it('says how many tools from which servers, what they are about, and how to go on', () => {
    const text = searchToolDescription(catalog(1));
    expect(text).toContain('2,000 tools');
    expect(text).toContain('40 servers');
    expect(text).toMatch(/github \(50 tools: [^)]*issue[^)]*\)/);
    expect(text).toMatch(/stripe \(50 tools: [^)]*refund[^)]*\)/);
    expect(text).toContain(DESCRIBE_TOOL_NAME);
    expect(text).toContain(CALL_TOOL_NAME);
    expect(text).toMatch(/\d+ are marked read-only and \d+ destructive/);
  });

  it('leaves generic verbs out of the topics', () => {
    const github = /github \(50 tools: ([^)]*)\)/.exec(searchToolDescription(catalog(1)))![1]!;
    for (const verb of ['create', 'get', 'list', 'delete', 'search']) expect(github.split(', ')).not.toContain(verb);
  });

  it('stays bounded for a catalog of hundreds of servers', () => {
    const text = searchToolDescription(catalog(5));
    expect(text).toContain('10,000 tools');
    expect(text).toContain('and 160 more servers');
    expect(text.length).toBeLessThanOrEqual(4000);
  });

  it('for an empty catalog says there is nothing to find', () => {
    expect(searchToolDescription([])).toMatch(/there are none/);
  });
});

import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../protocol/errors.ts';
import type { Result } from '../protocol/result.ts';
import { callArguments, describeArguments, metaTools, searchArguments } from './meta-tools.ts';

const message = (r: Result<unknown, GatewayError>): string | undefined => (r.ok || !('message' in r.error) ? undefined : r.error.message);

describe('gateway tool arguments', () => {
  it('takes a search with defaults, and refuses a bad query, limit or upstream with a message naming it', () => {
    expect(searchArguments({ arguments: { query: 'create issue' } }, 8)).toEqual({ ok: true, value: { query: 'create issue', limit: 8 } });
    expect(searchArguments({ arguments: { query: 'x', limit: 3, upstream: 'github' } }, 8)).toEqual({ ok: true, value: { query: 'x', limit: 3, upstream: 'github' } });
    expect(message(searchArguments({ arguments: { query: '  ' } }, 8))).toMatch(/non-empty string "query"/);
    expect(message(searchArguments({ arguments: { query: 'q'.repeat(501) } }, 8))).toMatch(/longer than 500/);
    expect(message(searchArguments({ arguments: { query: 'q', limit: 51 } }, 8))).toMatch(/"limit" must be an integer from 1 to 50/);
    expect(message(searchArguments({ arguments: { query: 'q', limit: 1.5 } }, 8))).toMatch(/"limit"/);
    expect(message(searchArguments({ arguments: { query: 'q', upstream: 3 } }, 8))).toMatch(/"upstream" must be a string/);
  });

  it('takes up to 20 distinct names to describe', () => {
    expect(describeArguments({ arguments: { names: ['a', 'b', 'a'] } })).toEqual({ ok: true, value: ['a', 'b'] });
    expect(message(describeArguments({ arguments: { names: [] } }))).toMatch(/non-empty array/);
    expect(message(describeArguments({ arguments: { names: ['a', 1] } }))).toMatch(/non-empty array/);
    expect(message(describeArguments({ arguments: { names: Array.from({ length: 21 }, (_, i) => `t${i}`) } }))).toMatch(/at most 20/);
  });

  it('takes a tool name and object arguments to call, never a gateway tool', () => {
    expect(callArguments({ arguments: { name: 'up__t', arguments: { a: 1 } } })).toEqual({ ok: true, value: { name: 'up__t', arguments: { a: 1 } } });
    expect(callArguments({ arguments: { name: 'up__t' } })).toEqual({ ok: true, value: { name: 'up__t' } });
    expect(message(callArguments({ arguments: {} }))).toMatch(/needs the string "name"/);
    expect(message(callArguments({ arguments: { name: 'up__t', arguments: [1] } }))).toMatch(/"arguments" must be an object/);
    expect(message(callArguments({ arguments: { name: 'gatehouse__describe_tools' } }))).toMatch(/call gatehouse__describe_tools directly/);
  });

  it('lists the three tools with the given search description', () => {
    const tools = metaTools('Finds tools.');
    expect(tools.map((t) => t.name)).toEqual(['gatehouse__search_tools', 'gatehouse__describe_tools', 'gatehouse__call_tool']);
    expect(tools[0]!.description).toBe('Finds tools.');
  });
});

// The overlay problems the config alone shows: each one a ConfigError naming the file, the
// line and the JSON path, found at load time. (Those that need the upstream's definition are
// in test/e2e/overlays-errors.test.ts.)
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../src/config/config-error.ts';
import { parseConfig } from '../../src/config/load-config.ts';

const FILE = '/etc/gatehouse/gatehouse.yaml';
const UPSTREAMS = 'upstreams:\n  - { name: tickets, url: "http://127.0.0.1:1/mcp" }\n';

function issues(overlays: string): ConfigIssue[] {
  try {
    parseConfig(`${UPSTREAMS}overlays:\n${overlays}`, FILE, {});
  } catch (e) {
    if (e instanceof ConfigError) return [...e.issues];
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('overlays: config errors found at load time', () => {
  it('accepts a complete overlay and freezes it with its line', () => {
    const config = parseConfig(`${UPSTREAMS}overlays:\n  tools:\n    - { tool: create_ticket, upstream: tickets, name: file_bug, arguments: { project: { fixed: web }, count: { maximum: 5 } } }\n`, FILE, {});
    expect(config.overlays.tools[0]).toMatchObject({ target: 'create_ticket', upstream: 'tickets', name: 'file_bug', source: { file: FILE, path: '/overlays/tools/0', line: 5 } });
    expect(config.overlays.tools[0]!.arguments.project).toMatchObject({ fixed: 'web', hidden: true });
    expect(Object.isFrozen(config.overlays.tools[0])).toBe(true);
  });

  it('a second overlay for the same tool', () => {
    expect(issues('  tools:\n    - { tool: create_ticket, upstream: tickets }\n    - { tool: create_ticket, upstream: tickets }\n')).toEqual([
      { file: FILE, path: '/overlays/tools/1/tool', line: 6, column: 15, message: 'a second overlay for tool "create_ticket" of upstream "tickets": the first is at /overlays/tools/0' },
    ]);
  });

  it('two renames to one name', () => {
    expect(issues('  tools:\n    - { tool: a, upstream: tickets, name: same }\n    - { tool: b, upstream: tickets, name: same }\n')).toEqual([
      { file: FILE, path: '/overlays/tools/1/name', line: 6, column: 43, message: 'the rename to "same" collides with the overlay at /overlays/tools/0, which renames to the same name' },
    ]);
  });

  it('an argument both fixed and narrowed', () => {
    const [issue] = issues('  tools:\n    - tool: a\n      upstream: tickets\n      arguments:\n        region: { fixed: eu, enum: [eu, us] }\n');
    expect(issue).toMatchObject({ path: '/overlays/tools/0/arguments/region', line: 8, message: 'a fixed argument is not sent by the client, so `enum` would never apply' });
  });

  it('an upstream that does not exist', () => {
    expect(issues('  prompts:\n    - { prompt: greet, upstream: nowhere }\n')).toEqual([
      { file: FILE, path: '/overlays/prompts/0/upstream', line: 5, column: 34, message: 'no upstream is named "nowhere"' },
    ]);
  });

  it('a sha256 that is not a hash', () => {
    const [issue] = issues('  tools:\n    - { tool: a, sha256: abc }\n');
    expect(issue).toMatchObject({ path: '/overlays/tools/0/sha256', line: 5, message: expect.stringContaining('expected 64 lowercase hex characters (run `gatehouse overlays confirm`)') });
  });

  it('a new name over maxNameLength or with characters tool names should not have', () => {
    expect(issues(`  tools:\n    - { tool: a, name: ${'n'.repeat(70)} }\n`)).toMatchObject([{ path: '/overlays/tools/0/name', line: 5, message: 'the new name is 70 characters, over maxNameLength (64)' }]);
    expect(issues('  tools:\n    - { tool: a, name: "file bug" }\n')).toMatchObject([{ path: '/overlays/tools/0/name', message: expect.stringContaining('expected 1 to 128 letters, digits') }]);
  });

  it('an unknown key in an argument', () => {
    const [issue] = issues('  tools:\n    - { tool: a, arguments: { x: { maxx: 3 } } }\n');
    expect(issue).toMatchObject({ path: '/overlays/tools/0/arguments/x/maxx', line: 5 });
    expect(issue!.message).toContain('maxx');
  });
});

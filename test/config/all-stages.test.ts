// Loading runs every stage and reports every problem in one run: when the schema rejects a
// value, normalisation and the checks between fields still run on the rest of the document,
// at the paths as written; a later problem at a value already blamed is left out.
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../src/config/config-error.ts';
import { parseConfig } from '../../src/config/load-config.ts';

const FILE = '/etc/gatehouse/gatehouse.yaml';
const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfig(text, FILE, env);

function issuesOf(run: () => unknown): readonly ConfigIssue[] {
  try {
    run();
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig: every stage in one run', () => {
  it('reports the problems of later stages together with the schema\'s, at the paths as written', () => {
    // Upstream 0 is rejected whole by the schema; the later checks still run on the rest.
    const text = 'sessions: { secret: short }\nupstreams:\n  - { name: a }\n  - { name: b, url: "http://h/mcp" }\n  - { name: b, url: "http://h/mcp", timeout: soon }\n';
    expect(issuesOf(() => parse(text)).map((i) => [i.path, i.line])).toEqual([
      ['/sessions/secret', 1],
      ['/upstreams/0', 3],
      ['/upstreams/2/name', 5],
      ['/upstreams/2/timeout', 5],
    ]);
  });

  it('leaves out a later problem at a value an earlier stage rejected', () => {
    // The unset variable makes the URL empty: only the variable is reported.
    expect(issuesOf(() => parse('upstreams:\n  - { name: a, url: "${NOPE}" }\n')).map((i) => i.path)).toEqual(['/upstreams/0/url']);
    // A wrong separator type is pruned; the prefix check that depends on it does not run on a guess.
    expect(issuesOf(() => parse('separator: 5\nupstreams:\n  - { name: a, url: "http://h/mcp" }\n')).map((i) => i.path)).toEqual(['/separator']);
  });

});

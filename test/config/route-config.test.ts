// The `route` transport kind: a set of HTTP targets chosen per tools/call by an Mcp-Param-*
// value. Shape is checked by the schema, URL schemes again after ${ENV} interpolation.
import { describe, it, expect } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { errorLinesOf } from './parse-errors.ts';

const FILE = 'gatehouse.yaml';

const errorLines = (text: string, env: NodeJS.ProcessEnv = {}): string[] => errorLinesOf(text, FILE, env);

const ROUTED = `upstreams:
  - name: sql
    route:
      by: Region
      targets:
        "us-*": http://127.0.0.1:9101/mcp
        "eu-?": "\${EU_URL}"
      default: http://127.0.0.1:9100/mcp
    headers: { Authorization: "Bearer \${SQL_TOKEN}" }
    timeout: 5s
`;

describe('route config', () => {
  it('normalizes targets in config order, with url set to the default as the list source', () => {
    const config = parseConfig(ROUTED, FILE, { EU_URL: 'https://eu.example/mcp', SQL_TOKEN: 't' });
    expect(config.upstreams[0]).toEqual({
      kind: 'http',
      name: 'sql',
      prefix: 'sql',
      url: 'http://127.0.0.1:9100/mcp',
      route: {
        by: 'Region',
        targets: [
          { pattern: 'us-*', url: 'http://127.0.0.1:9101/mcp' },
          { pattern: 'eu-?', url: 'https://eu.example/mcp' },
        ],
        default: 'http://127.0.0.1:9100/mcp',
      },
      headers: { Authorization: 'Bearer t' },
      headerFiles: [],
      auth: undefined,
      timeoutMs: 5000,
      listTtlMs: 60_000,
      limits: { maxAnswerBytes: 67_108_864, maxJsonDepth: 64 },
      concurrency: { maxConcurrent: 64, maxConcurrentPerPrincipal: 16 },
      session: { mode: 'shared', maxClientSessions: 100 },
    });
    const u = config.upstreams[0];
    expect(u?.kind === 'http' && Object.isFrozen(u.route?.targets[0])).toBe(true);
  });

  it('uses the first target as the list source when there is no default', () => {
    const text = 'upstreams:\n  - name: sql\n    route: { by: region, targets: { "b*": "http://b/mcp", "a*": "http://a/mcp" } }\n';
    const u = parseConfig(text, FILE, {}).upstreams[0];
    expect(u?.kind === 'http' && [u.url, u.route]).toEqual([
      'http://b/mcp',
      { by: 'region', targets: [{ pattern: 'b*', url: 'http://b/mcp' }, { pattern: 'a*', url: 'http://a/mcp' }] },
    ]);
  });

  it('rejects a route without `by` or with a `by` that is not a header-name token', () => {
    expect(errorLines('upstreams:\n  - name: sql\n    route: { targets: { "*": "http://h/mcp" } }\n')).toEqual([
      'gatehouse.yaml:3:12 /upstreams/0/route: missing required key "by"',
    ]);
    expect(errorLines('upstreams:\n  - name: sql\n    route: { by: "Mcp Region", targets: { "*": "http://h/mcp" } }\n')).toEqual([
      'gatehouse.yaml:3:18 /upstreams/0/route/by: expected an x-mcp-header name (RFC 9110 token, e.g. "Region"), got "Mcp Region"',
    ]);
  });

  it('rejects empty targets and an empty pattern', () => {
    expect(errorLines('upstreams:\n  - name: sql\n    route: { by: Region, targets: {} }\n')).toEqual([
      'gatehouse.yaml:3:35 /upstreams/0/route/targets: expected at least one entry, got none',
    ]);
    expect(errorLines('upstreams:\n  - name: sql\n    route: { by: Region, targets: { "": "http://h/mcp" } }\n')).toEqual([
      'gatehouse.yaml:3:37 /upstreams/0/route/targets/: invalid key "": expected a non-empty glob pattern',
    ]);
  });

  it('rejects a target or default that is not an http(s) URL, before and after ${ENV} interpolation', () => {
    const text = 'upstreams:\n  - name: sql\n    route: { by: Region, targets: { "us-*": "ftp://h/mcp" }, default: "h:9000" }\n';
    expect(errorLines(text)).toEqual([
      'gatehouse.yaml:3:45 /upstreams/0/route/targets/us-*: expected an http:// or https:// URL, got "ftp://h/mcp"',
      'gatehouse.yaml:3:71 /upstreams/0/route/default: expected an http:// or https:// URL, got "h:9000"',
    ]);
    const fromEnv = 'upstreams:\n  - name: sql\n    route: { by: Region, targets: { "us-*": "${US}" }, default: "${DEF}" }\n';
    expect(errorLines(fromEnv, { US: 'ftp://h', DEF: 'not a url' })).toEqual([
      'gatehouse.yaml:3:45 /upstreams/0/route/targets/us-*: expected an http:// or https:// URL, got scheme "ftp:"',
      'gatehouse.yaml:3:65 /upstreams/0/route/default: expected an http:// or https:// URL, got a value that is not a URL',
    ]);
  });

  it('rejects route together with url or command, with the exactly-one message', () => {
    const message = 'upstream must have exactly one of `url` (HTTP), `route` (routed HTTP) or `command` (stdio)';
    const route = 'route: { by: Region, targets: { "*": "http://h/mcp" } }';
    expect(errorLines(`upstreams:\n  - { name: sql, url: "http://h/mcp", ${route} }\n`)).toEqual([`gatehouse.yaml:2:5 /upstreams/0: ${message}`]);
    expect(errorLines(`upstreams:\n  - { name: sql, command: srv, ${route} }\n`)).toEqual([`gatehouse.yaml:2:5 /upstreams/0: ${message}`]);
  });

  it('rejects stdio-only keys next to route', () => {
    const text = 'upstreams:\n  - name: sql\n    route: { by: Region, targets: { "*": "http://h/mcp" } }\n    args: [x]\n    cwd: /tmp\n';
    expect(errorLines(text)).toEqual([
      'gatehouse.yaml:4:5 /upstreams/0/args: "args" applies only to stdio upstreams',
      'gatehouse.yaml:5:5 /upstreams/0/cwd: "cwd" applies only to stdio upstreams',
    ]);
  });

  it('rejects an unknown key inside route, listing the allowed ones', () => {
    expect(errorLines('upstreams:\n  - name: sql\n    route: { by: Region, targets: { "*": "http://h/mcp" }, fallback: "http://h" }\n')).toEqual([
      'gatehouse.yaml:3:60 /upstreams/0/route/fallback: unknown key "fallback" (allowed: by, targets, default)',
    ]);
  });
});

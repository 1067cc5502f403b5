import { describe, it, expect } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { CONFIG_SCHEMA } from '../../src/config/config-schema.ts';
import { durationMs } from '../../src/config/duration.ts';
import { errorLinesOf } from './parse-errors.ts';

const FILE = 'gatehouse.yaml';

const errorLines = (text: string, env: NodeJS.ProcessEnv = {}, overrides = {}): string[] => errorLinesOf(text, FILE, env, overrides);

describe('durations', () => {
  it('accepts ms, s, m, h and integer milliseconds', () => {
    const config = parseConfig(
      'listDeadline: 1500\nsessions: { idleTimeout: 2h }\nupstreams:\n  - { name: a, command: x, timeout: 5m, restart: { initialDelay: 0, maxDelay: 90s } }\n',
      FILE,
      {},
    );
    const u = config.upstreams[0];
    expect([config.listDeadlineMs, config.sessions.idleTimeoutMs]).toEqual([1500, 7_200_000]);
    expect(u?.kind === 'stdio' && [u.timeoutMs, u.restart.initialDelayMs, u.restart.maxDelayMs]).toEqual([300_000, 0, 90_000]);
  });

  it('rejects fractions, negatives and durations beyond what a Node timer can hold', () => {
    expect(errorLines('listDeadline: 1.5\nsessions: { idleTimeout: -1 }\nupstreams: []\n')).toEqual([
      'gatehouse.yaml:1:15 /listDeadline: expected a duration like "30s" or a number of milliseconds, got 1.5',
      'gatehouse.yaml:2:26 /sessions/idleTimeout: expected a duration like "30s" or a number of milliseconds, got -1',
    ]);
    expect(errorLines('listDeadline: 600h\nupstreams: []\n')).toEqual([
      'gatehouse.yaml:1:15 /listDeadline: expected a duration of at most 2147483647 ms (about 24 days), got "600h"',
    ]);
  });

  it('rejects a restart maxDelay below initialDelay', () => {
    expect(errorLines('upstreams:\n  - { name: a, command: x, restart: { initialDelay: 2s, maxDelay: 1s } }\n')).toEqual([
      'gatehouse.yaml:2:67 /upstreams/0/restart/maxDelay: expected maxDelay (1000 ms) to be at least initialDelay (2000 ms)',
    ]);
  });
});

describe('names, prefixes and separator', () => {
  it('rejects a prefix the separator would split in the wrong place', () => {
    expect(errorLines('upstreams:\n  - { name: my__srv, command: x }\n  - { name: b_, command: y }\n')).toEqual([
      'gatehouse.yaml:2:5 /upstreams/0/prefix: prefix "my__srv" does not work with separator "__": names are split on the first "__", so "my__srv__name" would be read as prefix "my"; set a different `prefix`',
      'gatehouse.yaml:3:5 /upstreams/1/prefix: prefix "b_" does not work with separator "__": names are split on the first "__", so "b___name" would be read as prefix "b"; set a different `prefix`',
    ]);
  });

  it('accepts the same names under a different separator', () => {
    const config = parseConfig('separator: "."\nupstreams:\n  - { name: my__srv, command: x }\n', FILE, {});
    expect([config.separator, config.upstreams[0]?.prefix]).toEqual(['.', 'my__srv']);
  });

  it('rejects an empty separator and a bad name', () => {
    expect(errorLines('separator: ""\nupstreams:\n  - { name: "a b", command: x }\n')).toEqual([
      'gatehouse.yaml:1:12 /separator: expected a non-empty string of letters, digits, "_", "-" or ".", got ""',
      'gatehouse.yaml:3:13 /upstreams/0/name: expected a name of letters, digits, "_" and "-" that starts with a letter or digit, got "a b"',
    ]);
  });

  it('rejects a prefix that leaves no room within maxNameLength', () => {
    expect(errorLines('maxNameLength: 6\nupstreams:\n  - { name: abcd, command: x }\n')).toEqual([
      'gatehouse.yaml:3:5 /upstreams/0/prefix: prefix "abcd" and separator "__" leave no room for a name within maxNameLength 6',
    ]);
  });
});

describe('transports', () => {
  it('rejects keys of the other transport', () => {
    const text = 'upstreams:\n  - { name: a, url: "http://h", args: [x] }\n  - { name: b, command: c, headers: {} }\n';
    expect(errorLines(text)).toEqual([
      `gatehouse.yaml:2:33 /upstreams/0/args: "args" applies only to stdio upstreams`,
      `gatehouse.yaml:3:28 /upstreams/1/headers: "headers" applies only to HTTP upstreams`,
    ]);
  });

  it('takes session: perClient only on an HTTP upstream with one url', () => {
    const text = 'upstreams:\n  - { name: a, command: c, session: perClient }\n  - { name: b, route: { by: R, targets: { "*": "http://h" } }, maxClientSessions: 5 }\n  - { name: c, url: "http://h", session: sometimes }\n';
    expect(errorLines(text)).toEqual([
      `gatehouse.yaml:2:28 /upstreams/0/session: "session" applies only to HTTP upstreams`,
      expect.stringMatching(/\/upstreams\/1\/maxClientSessions: "maxClientSessions" applies only to single-URL HTTP upstreams$/),
      expect.stringMatching(/\/upstreams\/2\/session: .*shared.*perClient/),
    ]);
  });
});

describe('HTTP upstream headers', () => {
  it('rejects headers the gateway computes and invalid header names, all in one run', () => {
    const text = 'upstreams:\n  - name: a\n    url: http://h\n    headers: { Mcp-Session-Id: x, Content-Type: y, "Bad Name": z }\n';
    expect(errorLines(text)).toEqual([
      'gatehouse.yaml:4:16 /upstreams/0/headers/Mcp-Session-Id: header "Mcp-Session-Id" is set by the gateway and cannot be configured',
      'gatehouse.yaml:4:35 /upstreams/0/headers/Content-Type: header "Content-Type" is set by the gateway and cannot be configured',
      'gatehouse.yaml:4:52 /upstreams/0/headers/Bad Name: invalid key "Bad Name": expected an HTTP header name (RFC 9110 token)',
    ]);
    expect(errorLines(text.replace(', "Bad Name": z', ''))).toEqual([
      'gatehouse.yaml:4:16 /upstreams/0/headers/Mcp-Session-Id: header "Mcp-Session-Id" is set by the gateway and cannot be configured',
      'gatehouse.yaml:4:35 /upstreams/0/headers/Content-Type: header "Content-Type" is set by the gateway and cannot be configured',
    ]);
  });

  it('rejects a header value with a line break from the environment, without echoing it', () => {
    const lines = errorLines('upstreams:\n  - { name: a, url: "http://h", headers: { Authorization: "${T}" } }\n', { T: 'secret\n' });
    expect(lines).toEqual([
      'gatehouse.yaml:2:59 /upstreams/0/headers/Authorization: expected a header value without line breaks or NUL (check the environment variable; a file read into it may end with a newline)',
    ]);
  });
});

describe('other checks', () => {
  it('reports malformed ${...} references', () => {
    expect(errorLines('upstreams:\n  - { name: a, command: "${1X}", args: ["${OPEN"] }\n')).toEqual([
      'gatehouse.yaml:2:25 /upstreams/0/command: expected ${NAME} or ${NAME:-default} with NAME of letters, digits and "_", got "${1X}"',
      'gatehouse.yaml:2:41 /upstreams/0/args/0: unterminated "${" (write "$${" for a literal "${")',
    ]);
  });

  it('rejects duplicate and malformed origins', () => {
    expect(errorLines('allowedOrigins: ["https://a.example", "https://a.example/", "https://a.example"]\nupstreams: []\n')).toEqual([
      'gatehouse.yaml:1:39 /allowedOrigins/1: expected an origin like "https://app.example.com" (no path) or "*", got "https://a.example/"',
      'gatehouse.yaml:1:61 /allowedOrigins/2: duplicate item "https://a.example" (same as item 0)',
    ]);
  });

  it('rejects a missing upstreams key, an empty file and a non-mapping document', () => {
    expect(errorLines('listen: {}\n')).toEqual(['gatehouse.yaml:1:1: missing required key "upstreams"']);
    expect(errorLines('# nothing\n')).toEqual(['gatehouse.yaml: the file is empty; expected a mapping with at least `upstreams`']);
    expect(errorLines('- a\n')).toEqual(['gatehouse.yaml:1:1: expected object, got array']);
  });

  it('lets command-line overrides win over the file', () => {
    const config = parseConfig('listen: { host: ::1, port: 1 }\nupstreams: []\n', FILE, {}, { host: '127.0.0.9', port: 0 });
    expect(config.listen).toEqual({ host: '127.0.0.9', port: 0, path: '/mcp' });
  });

  it('rejects an out-of-range port override', () => {
    expect(errorLines('upstreams: []\n', {}, { port: 70000 })).toEqual([
      'gatehouse.yaml /listen/port: expected a port from 0 to 65535 on the command line, got 70000',
    ]);
  });

  it('follows YAML aliases', () => {
    const config = parseConfig('upstreams:\n  - &base { name: a, command: x, args: [--v] }\n  - { name: b, command: y }\n', FILE, {});
    expect(config.upstreams.map((u) => u.name)).toEqual(['a', 'b']);
  });
});

describe('CONFIG_SCHEMA', () => {
  // Walks every subschema; editors complete from descriptions, and unknown keys must be errors.
  function subschemas(schema: unknown, at: string, out: [string, Record<string, unknown>][] = []) {
    if (schema === null || typeof schema !== 'object') return out;
    if (Array.isArray(schema)) {
      schema.forEach((s, i) => subschemas(s, `${at}/${i}`, out));
      return out;
    }
    const record = schema as Record<string, unknown>;
    out.push([at, record]);
    for (const [key, value] of Object.entries(record)) subschemas(value, `${at}/${key}`, out);
    return out;
  }

  it('describes every property and closes every object with fixed keys', () => {
    const all = subschemas(CONFIG_SCHEMA, '#');
    const undocumented = all
      .filter(([at]) => /\/properties\/[^/]+$/.test(at))
      .filter(([, s]) => typeof s['description'] !== 'string')
      .map(([at]) => at);
    const open = all
      .filter(([, s]) => s['type'] === 'object' && s['properties'] !== undefined)
      .filter(([, s]) => s['additionalProperties'] !== false)
      .map(([at]) => at);
    expect(undocumented).toEqual([]);
    expect(open).toEqual([]);
  });

  it('publishes the same defaults that normalization applies', () => {
    const config = parseConfig('upstreams:\n  - { name: a, command: x }\n', FILE, {});
    const u = config.upstreams[0];
    if (u?.kind !== 'stdio') throw new Error('expected a stdio upstream');
    type Node = { default?: unknown; properties: Record<string, Node> };
    const top = (CONFIG_SCHEMA as unknown as Node).properties;
    const up = (CONFIG_SCHEMA.$defs.upstream as unknown as Node).properties;
    const get = (node: Node | undefined, ...keys: string[]): unknown => {
      const found = keys.reduce<Node | undefined>((n, k) => n?.properties[k], node)?.default;
      return typeof found === 'string' && /^[0-9]+m?s$|^[0-9]+[mh]$/.test(found) ? durationMs(found) : found;
    };
    expect([
      get(top.listen, 'host'), get(top.listen, 'port'), get(top.listen, 'path'), top.separator?.default,
      top.maxNameLength?.default, top.allowedOrigins?.default, get(top.limits, 'maxBodyBytes'),
      get(top.limits, 'maxHeaderBytes'), get(top.limits, 'maxHeaderCount'), get(top.limits, 'pageSize'),
      get(top.listDeadline), get(top.sessions, 'idleTimeout'), get(up.timeout), get(up.listTtl),
      get(up.restart, 'initialDelay'), get(up.restart, 'maxDelay'),
    ]).toEqual([
      config.listen.host, config.listen.port, config.listen.path, config.separator,
      config.maxNameLength, config.allowedOrigins, config.limits.maxBodyBytes,
      config.limits.maxHeaderBytes, config.limits.maxHeaderCount, config.limits.pageSize,
      config.listDeadlineMs, config.sessions.idleTimeoutMs, u.timeoutMs, u.listTtlMs,
      u.restart.initialDelayMs, u.restart.maxDelayMs,
    ]);
  });
});

describe('stdio upstreams', () => {
  it('rejects a NUL character in an argument or environment value, which no process can be given', () => {
    expect(errorLines('upstreams:\n  - name: a\n    command: node\n    args: ["ok", "bad\\0arg"]\n    env: { X: "v\\0" }\n')).toEqual([
      'gatehouse.yaml:4:18 /upstreams/0/args/1: expected text without NUL characters (a process cannot be given them), got "bad\\u0000arg"',
      'gatehouse.yaml:5:15 /upstreams/0/env/X: expected text without NUL characters (a process cannot be given them), got "v\\u0000"',
    ]);
  });
});

// The `servers:` section: defaults, and every error naming the file, the line, the JSON path
// and the reason (unknown upstream, duplicate name, clashing path, prefix none over several
// upstreams, a path the gateway answers itself, a bad selection).
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { errorLinesOf } from './parse-errors.ts';

const FILE = 'gatehouse.yaml';
const UPSTREAMS = 'upstreams:\n  - { name: a, command: x }\n  - { name: b, command: y }\n';

const errorLines = (text: string): string[] => errorLinesOf(text, FILE);

describe('servers: defaults', () => {
  it('a server gets <listen.path>/<name>, every upstream, everything selected and upstream prefixes', () => {
    const config = parseConfig(`${UPSTREAMS}listen: { path: /gw }\nservers:\n  - name: team\n`, FILE, {});
    expect(config.servers).toEqual([
      {
        name: 'team',
        path: '/gw/team',
        host: undefined,
        upstreams: ['a', 'b'],
        select: Object.fromEntries(['tools', 'prompts', 'resources', 'resourceTemplates'].map((k) => [k, { include: ['*'], exclude: [] }])),
        instructions: undefined,
        prefix: 'upstream',
        overlays: { tools: [], prompts: [] },
      },
    ]);
  });

  it('no section: no servers', () => {
    expect(parseConfig(UPSTREAMS, FILE, {}).servers).toEqual([]);
  });

  it('two servers on one path with different hosts, and one on /mcp for a host, are fine', () => {
    const config = parseConfig(`${UPSTREAMS}servers:\n  - { name: x, path: /team, host: X.example.com }\n  - { name: y, path: /team, host: y.example.com }\n  - { name: z, path: /mcp, host: z.example.com }\n`, FILE, {});
    expect(config.servers.map((s) => [s.path, s.host])).toEqual([['/team', 'x.example.com'], ['/team', 'y.example.com'], ['/mcp', 'z.example.com']]);
  });
});

describe('servers: errors', () => {
  it('names an upstream that does not exist', () => {
    expect(errorLines(`${UPSTREAMS}servers:\n  - name: team\n    upstreams: [a, c]\n`)).toEqual([
      'gatehouse.yaml:6:20 /servers/0/upstreams/1: no upstream is named "c" (upstreams: a, b)',
    ]);
  });

  it('refuses a duplicate name, and the clash of their default paths', () => {
    expect(errorLines(`${UPSTREAMS}servers:\n  - name: team\n  - name: team\n`)).toEqual([
      'gatehouse.yaml:6:5 /servers/1/path: path /mcp/team is already served by server "team"; give the server another path or host',
      'gatehouse.yaml:6:11 /servers/1/name: duplicate server name "team" (already used by /servers/0)',
    ]);
  });

  it('refuses a path clash: with the default endpoint, with another server, and host-less over a host one', () => {
    expect(errorLines(`${UPSTREAMS}servers:\n  - { name: x, path: /mcp }\n  - { name: y, path: /t, host: h.example }\n  - { name: z, path: /t }\n`)).toEqual([
      'gatehouse.yaml:5:22 /servers/0/path: path /mcp is already served by the default endpoint (listen.path /mcp); give the server another path or host',
      'gatehouse.yaml:7:22 /servers/2/path: path /t is already served by server "y"; give the server another path or host',
    ]);
  });

  it('refuses a path the gateway answers itself', () => {
    expect(errorLines(`${UPSTREAMS}servers:\n  - { name: x, path: /.well-known/x }\n`)).toEqual([
      'gatehouse.yaml:5:22 /servers/0/path: path /.well-known/x is one of the gateway\'s own routes (/healthz, /readyz, /metrics, /.well-known/, /approvals)',
    ]);
  });

  it('refuses prefix none over more than one upstream', () => {
    expect(errorLines(`${UPSTREAMS}servers:\n  - { name: x, prefix: none }\n`)).toEqual([
      'gatehouse.yaml:5:24 /servers/0/prefix: prefix none needs exactly one upstream, so that names cannot collide; this server draws from 2',
    ]);
  });

  it('refuses a bad shape: unknown key, empty selection, bad name, host with a port', () => {
    const lines = errorLines(`${UPSTREAMS}servers:\n  - name: "-x"\n    tools: { include: [] }\n    host: h:80\n    overlay: {}\n`);
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringMatching(/^gatehouse\.yaml:5:\d+ \/servers\/0\/name: expected a name of at most 64 letters/),
      expect.stringMatching(/^gatehouse\.yaml:6:\d+ \/servers\/0\/tools\/include: expected a non-empty list of globs/),
      expect.stringMatching(/^gatehouse\.yaml:7:\d+ \/servers\/0\/host: expected a host name/),
      expect.stringMatching(/^gatehouse\.yaml:8:\d+ \/servers\/0\/overlay: unknown key "overlay"/),
    ]));
  });
});

describe('servers[].overlays: config errors found at load time, under /servers/N/overlays', () => {
  const server = (overlays: string): string => `${UPSTREAMS}servers:\n  - name: team\n    upstreams: [a]\n    overlays:\n${overlays}`;

  it('accepts a server overlay and freezes it with its file, line and path', () => {
    const config = parseConfig(server('      tools:\n        - { tool: t, upstream: a, name: renamed }\n'), FILE, {});
    expect(config.servers[0]!.overlays.tools[0]).toMatchObject({ target: 't', upstream: 'a', name: 'renamed', source: { path: '/servers/0/overlays/tools/0', line: 9 } });
    expect(Object.isFrozen(config.servers[0]!.overlays.tools[0])).toBe(true);
  });

  it('an upstream the server does not draw from, and one that does not exist', () => {
    expect(errorLines(server('      tools:\n        - { tool: t, upstream: b }\n      prompts:\n        - { prompt: p, upstream: c }\n'))).toEqual([
      'gatehouse.yaml:9:32 /servers/0/overlays/tools/0/upstream: server "team" does not draw from upstream "b" (its upstreams: a)',
      'gatehouse.yaml:11:34 /servers/0/overlays/prompts/0/upstream: server "team" does not draw from upstream "c" (its upstreams: a)',
    ]);
  });

  it('two overlays for one item, two renames to one name, an argument both fixed and narrowed', () => {
    expect(errorLines(server('      tools:\n        - { tool: t, upstream: a, name: same }\n        - { tool: t, upstream: a }\n        - { tool: u, name: same, arguments: { x: { fixed: 1, maximum: 2 } } }\n'))).toEqual([
      'gatehouse.yaml:10:19 /servers/0/overlays/tools/1/tool: a second overlay for tool "t" of upstream "a": the first is at /servers/0/overlays/tools/0',
      'gatehouse.yaml:11:28 /servers/0/overlays/tools/2/name: the rename to "same" collides with the overlay at /servers/0/overlays/tools/0, which renames to the same name',
      'gatehouse.yaml:11:50 /servers/0/overlays/tools/2/arguments/x: a fixed argument is not sent by the client, so `maximum` would never apply',
    ]);
  });

  it('a malformed sha256, an unknown key and a new name over maxNameLength', () => {
    const lines = errorLines(server(`      tools:\n        - { tool: t, sha256: abc }\n        - { tool: u, rename: x }\n        - { tool: v, name: ${'n'.repeat(70)} }\n`));
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringMatching(/^gatehouse\.yaml:9:\d+ \/servers\/0\/overlays\/tools\/0\/sha256: expected 64 lowercase hex characters/),
      expect.stringMatching(/^gatehouse\.yaml:10:\d+ \/servers\/0\/overlays\/tools\/1\/rename: unknown key "rename"/),
    ]));
    expect(errorLines(server(`      tools:\n        - { tool: v, name: ${'n'.repeat(70)} }\n`))).toEqual([
      expect.stringMatching(/^gatehouse\.yaml:9:\d+ \/servers\/0\/overlays\/tools\/0\/name: the new name is 70 characters, over maxNameLength \(64\)$/),
    ]);
  });
});

// Config errors name the file, the path in it, the line and what was expected, and never echo
// a secret or the credentials a URL may carry (parseConfig, src/config/).
import { describe, expect, it } from 'vitest';
import { FILE, formatOf, HEX_SECRET, issuesOf, parse } from './parse-errors.ts';

describe('parseConfig: errors name file, path, line and what was expected', () => {
  it('rejects an unknown top-level key, listing the allowed ones', () => {
    expect(issuesOf(() => parse('upstreams: []\nlisten_port: 80\n'))).toEqual([
      {
        file: FILE,
        path: '/listen_port',
        line: 2,
        column: 1,
        message:
          'unknown key "listen_port" (allowed: listen, separator, maxNameLength, allowedHosts, admin, allowedOrigins, limits, listDeadline, listRetry, sessions, identity, policy, validation, rateLimits, approvals, userAuth, audit, shutdown, metrics, toolSearch, resultShaping, servers, overlays, upstreams)',
      },
    ]);
  });

  it('rejects an unknown key inside an upstream', () => {
    const text = 'upstreams:\n  - name: a\n    url: http://h/mcp\n    timout: 5s\n';
    expect(formatOf(() => parse(text))).toBe(
      `${FILE}:4:5 /upstreams/0/timout: unknown key "timout" (allowed: name, prefix, url, route, headers, auth, timeout, listTtl, maxConcurrent, maxConcurrentPerPrincipal, session, maxClientSessions, command, args, env, cwd, restart)`,
    );
  });

  it('reports wrong types as expected versus found', () => {
    const text = 'listen: { port: "eighty" }\nupstreams:\n  - { name: a, command: x, args: [1, true] }\n  - 7\n';
    expect(formatOf(() => parse(text)).split('\n')).toEqual([
      `${FILE}:1:17 /listen/port: expected integer, got string`,
      `${FILE}:3:35 /upstreams/0/args/0: expected string, got number`,
      `${FILE}:3:38 /upstreams/0/args/1: expected string, got boolean`,
      `${FILE}:4:5 /upstreams/1: expected object, got number`,
    ]);
  });

  it('reports a bad duration with the accepted forms', () => {
    const text = 'upstreams:\n  - name: a\n    url: http://h/mcp\n  - name: b\n    url: http://h/mcp\n    timeout: thirty\n';
    expect(formatOf(() => parse(text))).toBe(
      `${FILE}:6:14 /upstreams/1/timeout: expected a duration like "30s" or a number of milliseconds, got "thirty"`,
    );
  });

  it('rejects an upstream with both url and command', () => {
    const text = 'upstreams:\n  - name: a\n    url: http://h/mcp\n    command: node\n';
    expect(issuesOf(() => parse(text))).toEqual([
      {
        file: FILE,
        path: '/upstreams/0',
        line: 2,
        column: 5,
        message: 'upstream must have exactly one of `url` (HTTP), `route` (routed HTTP) or `command` (stdio)',
      },
    ]);
  });

  it('rejects an upstream with none of url, route and command', () => {
    expect(formatOf(() => parse('upstreams:\n  - name: a\n    prefix: x\n'))).toBe(
      `${FILE}:2:5 /upstreams/0: upstream must have exactly one of \`url\` (HTTP), \`route\` (routed HTTP) or \`command\` (stdio)`,
    );
  });

  it('rejects duplicate upstream names', () => {
    const text = 'upstreams:\n  - { name: a, command: x }\n  - { name: a, url: "http://h" }\n';
    expect(issuesOf(() => parse(text))).toEqual([
      { file: FILE, path: '/upstreams/1/name', line: 3, column: 13, message: 'duplicate upstream name "a" (already used by /upstreams/0)' },
    ]);
  });

  it('rejects duplicate prefixes, naming both upstreams', () => {
    const text = 'upstreams:\n  - { name: github, command: x }\n  - { name: gh, command: y, prefix: github }\n';
    expect(formatOf(() => parse(text))).toBe(
      `${FILE}:3:37 /upstreams/1/prefix: upstreams "github" and "gh" both use the prefix "github"; give one a different \`prefix\``,
    );
  });

  it('allows an empty prefix, even on several upstreams', () => {
    const text = 'upstreams:\n  - { name: a, command: x, prefix: "" }\n  - { name: b, command: y, prefix: "" }\n  - { name: c, command: z }\n';
    expect(parse(text).upstreams.map((u) => [u.name, u.prefix])).toEqual([['a', ''], ['b', ''], ['c', 'c']]);
  });

  it('rejects a session secret that is not 32 bytes, without echoing it', () => {
    const text = 'upstreams: []\nsessions: { secret: "${S}" }\n';
    const expected = (found: string) =>
      `${FILE}:2:21 /sessions/secret: expected a 32-byte key as 64 hex characters or base64 (try \`openssl rand -hex 32\`), got ${found}`;
    expect(formatOf(() => parse(text, { S: 'ab'.repeat(16) }))).toBe(expected('16 bytes'));
    expect(formatOf(() => parse(text, { S: Buffer.alloc(31).toString('base64') }))).toBe(expected('31 bytes'));
    expect(formatOf(() => parse(text, { S: 'not a key!' }))).toBe(expected('10 characters that are neither hex nor base64'));
    const base64 = Buffer.alloc(32, 1).toString('base64');
    expect(parse(text, { S: base64 }).sessions.secret).toBe(base64);
    expect(parse(text, { S: HEX_SECRET }).sessions.secret).toBe(HEX_SECRET);
    expect(parse('upstreams: []\nsessions: { secret: "${S:-}" }\n').sessions.secret).toBeUndefined();
  });

  it('shows a rejected URL without its userinfo, query or fragment, which can hold credentials', () => {
    const text = [
      'upstreams:',
      '  - name: a',
      '    url: "htp://svc:hunter2@127.0.0.1:1/mcp?api_key=SEKRET1#frag"',
      '  - name: b',
      '    url: https://127.0.0.1:1/mcp',
      '    auth: { type: client_credentials, tokenUrl: "ftp://id:SEKRET2@auth.example/token?x=1", clientId: c, clientSecret: s }',
      '',
    ].join('\n');
    const shown = formatOf(() => parse(text));
    expect(shown).toBe(
      [
        `${FILE}:3:10 /upstreams/0/url: expected an http:// or https:// URL, got "htp://***@127.0.0.1:1/mcp?***#***"`,
        `${FILE}:6:49 /upstreams/1/auth/tokenUrl: expected an http:// or https:// URL, got "ftp://***@auth.example/token?***"`,
      ].join('\n'),
    );
    for (const secret of ['hunter2', 'SEKRET1', 'SEKRET2', 'svc:']) expect(shown).not.toContain(secret);
  });

  it('still shows a rejected plain value as written', () => {
    expect(formatOf(() => parse('upstreams:\n  - name: a\n    url: "htp://127.0.0.1:1/mcp"\n'))).toBe(
      `${FILE}:3:10 /upstreams/0/url: expected an http:// or https:// URL, got "htp://127.0.0.1:1/mcp"`,
    );
  });

  it('reports every problem at once, in file order', () => {
    const text = 'bogus: 1\nlisten: { port: 70000 }\nupstreams:\n  - { name: "-a", command: x }\n';
    expect(issuesOf(() => parse(text)).map((i) => [i.path, i.line])).toEqual([
      ['/bogus', 1],
      ['/listen/port', 2],
      ['/upstreams/0/name', 4],
    ]);
  });

  it('invalid YAML syntax names the file and line', () => {
    expect(issuesOf(() => parse('upstreams:\n  - name: a\n   bad: [\n'))[0]).toEqual({
      file: FILE,
      path: '',
      line: 3,
      column: 1,
      message: 'invalid YAML: Sequence item without - indicator',
    });
    expect(formatOf(() => parse('a: 1\na: 2\n'))).toBe(`${FILE}:2:1: invalid YAML: Map keys must be unique`);
  });
});

import { describe, expect, it } from 'vitest';
import { parseConfig } from './load-config.ts';
import { RESTART_ONLY, restartOnlyChanges, sameConfig, sameValue, upstreamChanges } from './live-changes.ts';

const FILE = '/etc/gatehouse/gatehouse.yaml';
const config = (yaml: string) => parseConfig(yaml, FILE, {});
const BASE = `
upstreams:
  - { name: a, url: "http://127.0.0.1:9001/mcp" }
  - { name: b, url: "http://127.0.0.1:9002/mcp" }
  - { name: c, command: node, args: [server.js] }
`;

describe('restartOnlyChanges', () => {
  it('finds nothing between two loads of the same text', () => {
    expect(restartOnlyChanges(config(BASE), config(BASE))).toEqual([]);
    expect(sameConfig(config(BASE), config(BASE))).toBe(true);
  });

  it('names each restart-only field that changed, in a fixed order, with why', () => {
    const next = config(`listen: { port: 9999, path: /other }\nsessions: { idleTimeout: 5m }\naudit: { dir: /tmp/elsewhere }\n${BASE}`);
    expect(restartOnlyChanges(config(BASE), next).map((c) => c.path)).toEqual(['/listen/port', '/listen/path', '/sessions/idleTimeout', '/audit']);
    expect(restartOnlyChanges(config(BASE), next)[0]!.why).toBe('the listener is bound at start');
  });

  it('lets the live fields change: upstreams, identity, limits other than the sized ones, policy', () => {
    const next = config(`limits: { maxBodyBytes: 1000, maxSessions: 5 }\nlistDeadline: 1s\nidentity: { resource: "http://gw.test/mcp", apiKeys: [{ id: k, sha256: "${'a'.repeat(64)}", subject: k }] }\nseparator: "."\nupstreams:\n  - { name: a, url: "http://127.0.0.1:9001/mcp", timeout: 5s }\n`);
    expect(restartOnlyChanges(config(BASE), next)).toEqual([]);
    expect(sameConfig(config(BASE), next)).toBe(false);
  });

  it('lets virtual servers be added, changed and removed', () => {
    const one = config(`${BASE}servers:\n  - { name: team, upstreams: [a] }\n`);
    const other = config(`${BASE}servers:\n  - { name: team, upstreams: [a, b], path: /team }\n  - { name: late, upstreams: [c] }\n`);
    expect(restartOnlyChanges(config(BASE), one)).toEqual([]);
    expect(restartOnlyChanges(one, other)).toEqual([]);
    expect(restartOnlyChanges(other, config(BASE))).toEqual([]);
    expect(sameConfig(one, other)).toBe(false);
  });

  it('refuses the two limits sized at start', () => {
    const next = config(`limits: { maxHeaderBytes: 32768, catalogCacheBytes: 1000000 }\n${BASE}`);
    expect(restartOnlyChanges(config(BASE), next).map((c) => c.path)).toEqual(['/limits/maxHeaderBytes', '/limits/catalogCacheBytes']);
  });

  it("refuses a change of the user token store in use, but takes adding or removing the userAuth section", () => {
    const ua = (store: string): string => `userAuth: { publicUrl: "https://gw.example.com", keys: ["${'3'.repeat(64)}"]${store} }\n`;
    const memory = config(`${ua('')}${BASE}`);
    const redis = config(`${ua(', store: { kind: redis, redisUrl: "redis://127.0.0.1:6379" }')}${BASE}`);
    expect(restartOnlyChanges(memory, redis)).toEqual([{ path: '/userAuth/store', why: "users' sealed tokens live in the store in use" }]);
    expect(restartOnlyChanges(config(BASE), redis)).toEqual([]);
    expect(restartOnlyChanges(redis, config(BASE))).toEqual([]);
    // Other userAuth fields are live.
    expect(restartOnlyChanges(memory, config(`${ua(', consentTimeout: 5m, withoutConsent: hide')}${BASE}`))).toEqual([]);
  });

  it('covers only paths the config has', () => {
    const c = config(`admin: { host: 127.0.0.1, port: 0 }\napprovals: { keys: ["${'1'.repeat(64)}"] }\nrateLimits: { store: memory }\nsessions: { secret: "${'2'.repeat(64)}" }\nuserAuth: { publicUrl: "https://gw.example.com", keys: ["${'3'.repeat(64)}"] }\n${BASE}`);
    for (const f of RESTART_ONLY) expect(restartOnlyChanges(c, c), f.path).toEqual([]);
    expect(restartOnlyChanges(config(BASE), c).map((x) => x.path)).toEqual(['/admin', '/sessions/secret', '/approvals']);
  });
});

describe('upstreamChanges', () => {
  it('sorts upstreams into added, removed, changed and kept by name and settings', () => {
    const next = config(`upstreams:\n  - { name: a, url: "http://127.0.0.1:9001/mcp" }\n  - { name: b, url: "http://127.0.0.1:9002/mcp", prefix: bee }\n  - { name: d, url: "http://127.0.0.1:9004/mcp" }\n`);
    expect(upstreamChanges(config(BASE).upstreams, next.upstreams)).toEqual({ added: ['d'], removed: ['c'], changed: ['b'], kept: ['a'] });
  });

  it('counts a gateway-wide limit that upstream connections apply as a change of every upstream', () => {
    const next = config(`limits: { maxJsonDepth: 32 }\n${BASE}`);
    expect(upstreamChanges(config(BASE).upstreams, next.upstreams).changed).toEqual(['a', 'b', 'c']);
  });
});

describe('sameValue', () => {
  it('compares structure, ignores undefined members, and compares bytes by content', () => {
    expect(sameValue({ a: [1, { b: 'x' }], c: undefined }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(sameValue({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameValue(Buffer.from('ab'), Buffer.from('ab'))).toBe(true);
    expect(sameValue(Buffer.from('ab'), Buffer.from('ac'))).toBe(false);
    expect(sameValue([], {})).toBe(false);
    expect(sameValue(null, {})).toBe(false);
  });
});

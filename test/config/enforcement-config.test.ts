// The enforcement keys of the gateway config: identity, policy, validation, rateLimits.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { errorLinesOf } from './parse-errors.ts';

const FILE = '/etc/gatehouse/gatehouse.yaml';

const errorLines = (text: string, env: NodeJS.ProcessEnv = {}): string[] => errorLinesOf(text, FILE, env);

describe('enforcement config', () => {
  it('leaves policy and identity off when absent, with validation and memory rate limits on', () => {
    const c = parseConfig('upstreams: []\n', FILE, {});
    expect(c.policy).toBeUndefined();
    expect(c.identity).toBeUndefined();
    expect(c.validation).toEqual({ arguments: true, outputs: 'warn' });
    expect(c.rateLimits).toEqual({ store: 'memory' });
  });

  it('defaults a present policy to deny, the policies dir beside the file, and watching', () => {
    const c = parseConfig('upstreams: []\npolicy: {}\n', FILE, {});
    expect(c.policy).toEqual({ dir: '/etc/gatehouse/policies', defaultEffect: 'deny', watch: true });
    const d = parseConfig('upstreams: []\npolicy: { dir: ../rules, defaultEffect: allow, watch: false }\n', FILE, {});
    expect(d.policy).toEqual({ dir: '/etc/rules', defaultEffect: 'allow', watch: false });
  });

  it('rejects an unknown effect and an unknown outputs mode with their places', () => {
    expect(errorLines('upstreams: []\npolicy: { defaultEffect: approve }\nvalidation: { outputs: loud }\n')).toEqual([
      `${FILE}:2:26 /policy/defaultEffect: expected one of "allow", "deny", got "approve"`,
      `${FILE}:3:24 /validation/outputs: expected one of "off", "warn", "block", got "loud"`,
    ]);
  });

  it('needs a redis URL for the redis store, interpolated from the environment', () => {
    expect(errorLines('upstreams: []\nrateLimits: { store: redis }\n')).toEqual([
      `${FILE}:2:13 /rateLimits/redisUrl: expected a redis:// URL when store is redis`,
    ]);
    const c = parseConfig('upstreams: []\nrateLimits: { store: redis, redisUrl: "${R}" }\n', FILE, { R: 'redis://127.0.0.1:6390' });
    expect(c.rateLimits).toEqual({ store: 'redis', redisUrl: 'redis://127.0.0.1:6390', prefix: 'gatehouse:rl:' });
  });

  it('reports identity problems under /identity with their line', () => {
    const lines = errorLines('upstreams: []\nidentity:\n  resource: http://127.0.0.1:8080/mcp\n  apiKeys:\n    - { id: ci, sha256: nothex, subject: ci }\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.startsWith(`${FILE}:`) && l.includes('/identity/apiKeys/0'))).toBe(true);
  });

  it('normalizes a working identity section', () => {
    const hash = 'a'.repeat(64);
    const c = parseConfig(`upstreams: []\nidentity:\n  resource: http://127.0.0.1:8080/mcp\n  apiKeys:\n    - { id: ci, sha256: "${hash}", subject: ci-bot, groups: [automation] }\n`, FILE, {});
    expect(c.identity?.apiKeys).toEqual([{ id: 'ci', sha256: hash, subject: 'ci-bot', groups: ['automation'], scopes: [], claims: {} }]);
    expect(c.identity?.anonymous.enabled).toBe(false);
  });

  it('refuses to run open (no identity) on a non-loopback address, and accepts anonymous access said explicitly', () => {
    expect(errorLines('listen: { host: 0.0.0.0 }\nupstreams: []\n')).toEqual([
      `${FILE}:1:1 /identity: listening on 0.0.0.0 (not loopback) needs an \`identity\` section: API keys or OAuth, or \`identity: { resource: <this gateway's /mcp URL>, anonymous: { enabled: true } }\` to allow anonymous callers explicitly`,
    ]);
    expect(parseConfig('listen: { host: 127.0.0.1 }\nupstreams: []\n', FILE, {}).identity).toBeUndefined();
    const explicit = parseConfig('listen: { host: 0.0.0.0 }\nidentity: { resource: "http://gw.example/mcp", anonymous: { enabled: true } }\nupstreams: []\n', FILE, {});
    expect(explicit.identity?.anonymous.enabled).toBe(true);
  });
});

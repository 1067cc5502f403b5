// Every configured limit is documented and counted: each key under `limits` in the config
// schema (but pageSize, which paginates rather than bounds) has a row in README's Limits
// table (as `limits.<key>`) and a `gatehouse_limit_hits_total{limit}` series that reads 0 from the start and
// counts each refusal. A new limit that skips either fails here. Real gateway, real HTTP.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA } from '../../src/config/config-schema.ts';
import { LIMIT_NAMES } from '../../src/telemetry/limit-names.ts';
import { startModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, REPO_ROOT, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';

/** Keys under `limits` that are not limits on what a request or an answer may cost. */
const NOT_LIMITS = new Set(['pageSize']);
const LIMIT_KEYS = Object.keys(CONFIG_SCHEMA.properties.limits.properties).filter((k) => !NOT_LIMITS.has(k));

let gw: TestGateway;

useGatewayBed({
  upstream: () => startModernUpstream(),
  config: (upstream) => `
limits: { maxBodyBytes: 2048, maxHeaderCount: 30, maxHeaderBytes: 3000 }
upstreams:
  - { name: up, url: "${upstream.url}" }
`,
  ready: (bed) => ({ gw } = bed),
});

async function hits(): Promise<Record<string, number>> {
  const text = await (await fetch(new URL('/metrics', gw.url))).text();
  return Object.fromEntries([...text.matchAll(/^gatehouse_limit_hits_total\{limit="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

describe('the configured limits', () => {
  it('each have a row in the README Limits table', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## Limits\n');
    const table = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const rows = [...table.matchAll(/^\| `limits\.([A-Za-z]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(expect.arrayContaining(LIMIT_KEYS));
  });

  it('each have a gatehouse_limit_hits_total series that reads 0 until hit', async () => {
    expect([...LIMIT_NAMES].sort()).toEqual(expect.arrayContaining([...LIMIT_KEYS].sort()));
    const start = await hits();
    for (const key of LIMIT_KEYS) expect(start[key]).toBeDefined();
  });

  it('count the body and header limits when they refuse a request', async () => {
    const before = await hits();
    const headers = modernHeaders('tools/list');
    await postJson(gw.url, JSON.stringify({ ...modernBody(1, 'tools/list'), pad: 'x'.repeat(3000) }), headers);
    const many: Record<string, string> = { ...headers };
    for (let i = 0; i < 40; i++) many[`x-extra-${i}`] = 'v';
    await postJson(gw.url, modernBody(2, 'tools/list'), many);
    await postJson(gw.url, modernBody(3, 'tools/list'), { ...headers, 'x-big': 'v'.repeat(3500) });
    const after = await hits();
    expect(after.maxBodyBytes! - before.maxBodyBytes!).toBe(1);
    expect(after.maxHeaderCount! - before.maxHeaderCount!).toBe(1);
    expect(after.maxHeaderBytes! - before.maxHeaderBytes!).toBe(1);
  });
});

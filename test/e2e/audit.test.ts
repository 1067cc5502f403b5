// The audit trail through the whole gateway: a request leaves a record checked field by
// field (principal, names on both sides, decoded Mcp-Param values, decision and rule,
// outcome, timings, sizes, digests — never secrets); notable events are recorded; the chain
// verifies with `gatehouse audit verify` and catches an edit, a deletion and an insertion;
// a failing disk refuses calls in fail-closed mode and only counts losses in fail-open mode.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { REPO_ROOT, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { policyDir } from '../harness/policy-env.ts';

const KEY = 'audit-test-key-0123456789abcdefghij';
const sha = (k: string): string => createHash('sha256').update(k).digest('hex');
const TRACE = '0123456789abcdef0123456789abcdef';

let upstream: ModernUpstream;
let gw: TestGateway;
const auditDir = join(mkdtempSync(join(tmpdir(), 'gatehouse-audit-e2e-')), 'trail');
const policies = policyDir({
  'rules.yaml': `rules:
  - { id: eu-query, effect: allow, when: { tool: [up__query], params: { Region: ["eu-*"] } } }
  - { id: echo, effect: allow, when: { tool: [up__echo] } }
`,
});

function lines(): Record<string, any>[] {
  const file = join(auditDir, 'gatehouse-audit.jsonl');
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

useGatewayBed({
  upstream: () => startModernUpstream({ name: 'up' }),
  config: (up) => `
identity:
  resource: http://gatehouse.test/mcp
  apiKeys: [{ id: ops, sha256: "${sha(KEY)}", subject: ops-bot, groups: [ops] }]
policy: { dir: "${policies}" }
audit:
  dir: "${auditDir}"
  record: { arguments: redacted, results: digest }
upstreams:
  - { name: up, url: "${up.url}" }
`,
  ready: (bed) => ({ upstream, gw } = bed),
});

const headers = (method: string, name: string, extra: Record<string, string> = {}) => modernHeaders(method, name, { 'x-api-key': KEY, ...extra });

describe('audit records', () => {
  it('records an allowed call field by field, with decoded Mcp-Param values and no secret', async () => {
    const res = await postJson(
      gw.url,
      modernBody(41, 'tools/call', { name: 'up__query', arguments: { region: 'eu-west', query: 'select 1', limit: 5 } }),
      headers('tools/call', 'up__query', { 'mcp-param-region': 'eu-west', 'mcp-param-limit': '5', traceparent: `00-${TRACE}-00f067aa0ba902b7-01` }),
    );
    expect(res.json.result.content).toEqual([{ type: 'text', text: 'eu-west:select 1:5' }]);
    const rec = lines().find((r) => r.rpcId === 41)!;
    expect(rec).toMatchObject({
      type: 'request',
      era: 'modern',
      method: 'tools/call',
      principal: { subject: 'ops-bot', method: 'api_key', groups: ['ops'] },
      client: { name: 'raw-test', version: '1' },
      upstream: 'up',
      name: 'up__query',
      upstreamName: 'query',
      params: { 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Limit': 5 },
      decision: { effect: 'allow', ruleId: 'eu-query' },
      arguments: { redacted: { region: 'eu-west', query: 'select 1', limit: 5 } },
      outcome: 'ok',
      traceId: TRACE,
    });
    expect(rec.result.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(rec.durationMs).toBeGreaterThan(0);
    expect(rec.upstreamMs).toBeGreaterThan(0);
    expect(rec.upstreamMs).toBeLessThanOrEqual(rec.durationMs);
    expect(rec.responseBytes).toBe(Buffer.byteLength(JSON.stringify(res.json)));
    expect(rec.requestId).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8')).not.toContain(KEY);
  });

  it('records a denied call as denied (the client saw an unknown tool) and redacts secrets in arguments', async () => {
    const res = await postJson(gw.url, modernBody(42, 'tools/call', { name: 'up__query', arguments: { region: 'us-east', query: 'x' } }), headers('tools/call', 'up__query', { 'mcp-param-region': 'us-east' }));
    expect(res.json.error.message).toBe('Unknown tool: up__query');
    expect(lines().find((r) => r.rpcId === 42)).toMatchObject({ outcome: 'denied', errorCode: -32602, decision: { effect: 'deny', ruleId: 'default' }, params: { 'Mcp-Param-Region': 'us-east' } });
    await postJson(gw.url, modernBody(43, 'tools/call', { name: 'up__echo', arguments: { message: 'hi', password: 'hunter2' } }), headers('tools/call', 'up__echo'));
    const echo = lines().find((r) => r.rpcId === 43)!;
    expect(echo.arguments.redacted.password).toBe('[REDACTED]');
    expect(JSON.stringify(echo)).not.toContain('hunter2');
  });

  it('records refused requests and notable events', async () => {
    await postJson(gw.url, modernBody(44, 'tools/call', { name: 'up__echo', arguments: { message: 'x' } }), headers('tools/call', 'wrong-name'));
    expect(lines().find((r) => r.rpcId === 44)).toMatchObject({ outcome: 'error', errorCode: -32020 });
    const events = lines().filter((r) => r.type === 'event').map((r) => r.event);
    expect(events).toContain('config_loaded');
    expect(events).toContain('upstream_up');
  });

  it('counts records and fsyncs in /metrics: concurrent calls share a sync (group commit)', async () => {
    const counters = async () => {
      const text = await (await fetch(new URL('/metrics', gw.url))).text();
      const read = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
      return { written: read('gatehouse_audit_records_written_total'), syncs: read('gatehouse_audit_syncs_total') };
    };
    const before = await counters();
    const calls = Array.from({ length: 20 }, (_, i) =>
      postJson(gw.url, modernBody(500 + i, 'tools/call', { name: 'up__echo', arguments: { message: `m${i}` } }), headers('tools/call', 'up__echo')),
    );
    for (const res of await Promise.all(calls)) expect(res.json.result).toBeDefined();
    const after = await counters();
    expect(after.written - before.written).toBeGreaterThanOrEqual(20);
    // Every one of the 20 records is on disk before its reply, yet they did not take 20 syncs.
    expect(after.syncs - before.syncs).toBeGreaterThan(0);
    expect(after.syncs - before.syncs).toBeLessThan(after.written - before.written);
    expect(lines().filter((r) => r.rpcId >= 500 && r.rpcId < 520)).toHaveLength(20);
  });

  it('gatehouse audit verify accepts the chain and catches an edit, a deletion and an insertion', () => {
    const verify = (dir: string) => spawnSync(process.execPath, [join(REPO_ROOT, 'bin/gatehouse.js'), 'audit', 'verify', dir], { encoding: 'utf8' });
    expect(verify(auditDir).status).toBe(0);
    const original = readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trimEnd().split('\n');
    const tamper = (name: string, mutate: (l: string[]) => string[]) => {
      const dir = mkdtempSync(join(tmpdir(), `gatehouse-audit-${name}-`));
      writeFileSync(join(dir, 'gatehouse-audit.jsonl'), `${mutate([...original]).join('\n')}\n`);
      return verify(dir);
    };
    const edited = tamper('edit', (l) => {
      l[2] = l[2]!.replace('"outcome":"ok"', '"outcome":"error"').replace('"outcome":"denied"', '"outcome":"ok"');
      return l;
    });
    expect(edited.status).toBe(1);
    expect(edited.stdout + edited.stderr).toMatch(/:3\b/);
    const deleted = tamper('delete', (l) => [...l.slice(0, 2), ...l.slice(3)]);
    expect(deleted.status).toBe(1);
    const inserted = tamper('insert', (l) => [...l.slice(0, 2), l[1]!, ...l.slice(2)]);
    expect(inserted.status).toBe(1);
  });
});

describe('a failing audit disk', () => {
  async function gatewayOnFullDisk(onFailure: 'closed' | 'open') {
    const dir = mkdtempSync(join(tmpdir(), `gatehouse-audit-full-${onFailure}-`));
    symlinkSync('/dev/full', join(dir, 'gatehouse-audit.jsonl'));
    return startTestGateway(`
audit: { dir: "${dir}", onFailure: ${onFailure}, retryInterval: 50ms }
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  }

  it('fail closed: calls are refused with 503 while nothing can be recorded', async () => {
    const g = await gatewayOnFullDisk('closed');
    await g.waitUp();
    let res!: Awaited<ReturnType<typeof postJson>>;
    await expect.poll(async () => (res = await postJson(g.url, modernBody(1, 'tools/call', { name: 'up__echo', arguments: { message: 'x' } }), modernHeaders('tools/call', 'up__echo'))).status, { timeout: 5000 }).toBe(503);
    expect(res.status).toBe(503);
    expect(res.json.error.message).toContain('audit trail cannot record');
    await g.close();
  });

  it('fail open: calls are served and the loss is counted in /metrics', async () => {
    const g = await gatewayOnFullDisk('open');
    await g.waitUp();
    const res = await postJson(g.url, modernBody(2, 'tools/call', { name: 'up__echo', arguments: { message: 'x' } }), modernHeaders('tools/call', 'up__echo'));
    expect(res.json.result.structuredContent).toEqual({ message: 'x' });
    const text = await (await fetch(new URL('/metrics', g.url))).text();
    const dropped = Number(/gatehouse_audit_dropped_total (\d+)/.exec(text)?.[1]);
    expect(dropped).toBeGreaterThan(0);
    await g.close();
  });
});

describe('audit switched off', () => {
  it('serves calls and writes nothing, not even the events', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'gatehouse-audit-off-')), 'trail');
    const g = await startTestGateway(`
audit: { enabled: false, dir: "${dir}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
    try {
      await g.waitUp();
      const res = await postJson(g.url, modernBody(3, 'tools/call', { name: 'up__echo', arguments: { message: 'off' } }), modernHeaders('tools/call', 'up__echo'));
      expect(res.json.result.structuredContent).toEqual({ message: 'off' });
      expect(existsSync(dir)).toBe(false);
    } finally {
      await g.close();
    }
  });
});

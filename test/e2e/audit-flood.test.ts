// A caller must not be able to rotate the audit history away. Anonymous, refused requests
// carrying megabyte ids, names and client info are recorded with every string cut to
// audit.maxStringBytes (marked "…[cut N bytes]"), so a small rotation budget still holds the
// start of the chain. And when rotation does delete history, the chain says so: every new
// file opens with an audit_rotated event (previous file's last hash, files deleted), the
// deletions are counted in /metrics, and `gatehouse audit verify` tells a start cut by the
// rotation budget from one whose files vanished some other way.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { REPO_ROOT, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { policyDir } from '../harness/policy-env.ts';

const MIB = 1024 * 1024;
let upstream: ModernUpstream;

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
});
afterAll(async () => {
  await upstream?.close();
});

async function gatewayWithBudget(rotate: string): Promise<{ gw: TestGateway; dir: string }> {
  const dir = join(mkdtempSync(join(tmpdir(), 'gatehouse-audit-flood-')), 'trail');
  const gw = await startTestGateway(`
policy: { dir: "${policyDir({ 'rules.yaml': 'rules: []\n' })}", watch: false }
audit: { dir: "${dir}", rotate: ${rotate} }
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  await gw.waitUp();
  return { gw, dir };
}

function records(dir: string): Record<string, any>[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'))
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

function verify(dir: string): { status: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/gatehouse.js'), 'audit', 'verify', dir], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout };
}

/** A refused tools/call whose id and client info are `size` bytes each, and whose tool name
 * is as long as a header may carry it (the Mcp-Name header must repeat it). */
function hugeCall(i: number, size: number) {
  const name = `n${i}`.padEnd(4000, 'n');
  const body = modernBody(`${i}-`.padEnd(size, 'i'), 'tools/call', {
    name,
    _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'c'.repeat(size), version: 'v'.repeat(size) } },
  });
  return { body, headers: modernHeaders('tools/call', name) };
}

describe('huge client strings', () => {
  let gw: TestGateway;
  let dir: string;
  beforeAll(async () => {
    ({ gw, dir } = await gatewayWithBudget('{ maxBytes: 256KiB, maxFiles: 2 }'));
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('are cut to maxStringBytes with a marker, so a flood of refused requests cannot rotate history away', async () => {
    for (let i = 0; i < 12; i++) {
      const { body, headers } = hugeCall(i, MIB);
      const res = await postJson(gw.url, body, headers);
      expect(res.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Unknown tool: n/) });
    }
    const all = records(dir);
    const refused = all.filter((r) => r.type === 'request' && r.method === 'tools/call');
    expect(refused).toHaveLength(12);
    for (const r of refused) {
      expect(r.outcome).toBe('error');
      expect(r.rpcId).toMatch(/^\d+-i+…\[cut \d+ bytes\]$/);
      expect(Buffer.byteLength(r.rpcId)).toBeLessThan(1024 + 32);
      expect(r.client.name).toMatch(/…\[cut \d+ bytes\]$/);
      expect(r.client.version).toMatch(/^v{1024}…\[cut \d+ bytes\]$/);
    }
    const metrics = await (await fetch(new URL('/metrics', gw.url))).text();
    expect(metrics).toMatch(/^gatehouse_audit_strings_cut_total 12$/m);
    // 24 MiB of client strings, some 40 KiB of records: the chain still starts at genesis.
    const v = verify(dir);
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(/from genesis/);
  });
});

describe('rotation that deletes history', () => {
  let gw: TestGateway;
  let dir: string;
  beforeAll(async () => {
    ({ gw, dir } = await gatewayWithBudget('{ maxBytes: 4KB, maxFiles: 2 }'));
    for (let i = 0; i < 60; i++) await postJson(gw.url, modernBody(i, 'tools/call', { name: 'up__echo', arguments: { message: 'x' } }), modernHeaders('tools/call', 'up__echo'));
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('opens every new file with an audit_rotated event that carries the previous file\'s last hash', () => {
    const files = readdirSync(dir).sort();
    for (const f of files.filter((n) => n !== 'gatehouse-audit.jsonl').slice(1)) {
      const first = JSON.parse(readFileSync(join(dir, f), 'utf8').split('\n')[0]!);
      expect(first).toMatchObject({ type: 'event', event: 'audit_rotated', detail: { reason: 'maxBytes', budget: { maxBytes: 4000, maxFiles: 2 } } });
      expect(first.detail.previous.lastHash).toBe(first.prev);
      expect(first.detail.previous.lastSeq).toBe(first.seq - 1);
    }
    const deleted = records(dir).filter((r) => r.event === 'audit_rotated').flatMap((r) => r.detail.deleted);
    expect(deleted.length).toBeGreaterThan(0);
    expect(deleted[0]).toMatchObject({ file: expect.stringMatching(/^gatehouse-audit\.\d{12}\.jsonl$/), firstSeq: expect.any(Number), lastSeq: expect.any(Number), lastTime: expect.any(String) });
  });

  it('counts rotations and deleted files in /metrics, with how far back the kept history reaches', async () => {
    const text = await (await fetch(new URL('/metrics', gw.url))).text();
    const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('gatehouse_audit_rotations_total')).toBeGreaterThan(2);
    expect(value('gatehouse_audit_files_deleted_total')).toBeGreaterThan(0);
    expect(value('gatehouse_audit_retained_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('lets verify say the start was cut by the rotation budget, and how young that history was', () => {
    const v = verify(dir);
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(/starting mid-chain\nhistory cut by rotation: seq 1\.\.\d+ were deleted by the rotation budget \(rotate\.maxFiles 2, rotate\.maxBytes 4000\), gatehouse-audit\.\d+\.jsonl \(seq \d+\.\.\d+\) at \S+, when the newest of them was \d+ s old; not by retention age\n/);
  });

  it('says nothing explains the start when the oldest file was removed outside the gateway', async () => {
    await gw.close();
    const oldest = readdirSync(dir).sort()[0]!;
    unlinkSync(join(dir, oldest));
    const v = verify(dir);
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(/history cut: seq 1\.\.\d+ are not here, and no audit_rotated record in these files says the gateway deleted them/);
  });
});

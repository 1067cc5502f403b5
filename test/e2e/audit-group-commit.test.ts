// Group commit through the whole gateway, with the audit file's fdatasyncs counted and, on
// demand, failed (gated-audit-file.ts): many concurrent calls share syncs and every reply
// comes after its record is durable; a failing fdatasync fails every call of its batch with a
// clear error (fail closed), counts it in /metrics (rejected records, write errors), and once the disk
// works again the chain still verifies with `gatehouse audit verify` and says what was lost.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { gatedAuditFile, type GatedAuditFile } from '../audit/gated-audit-file.ts';
import { REPO_ROOT, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';

let upstream: ModernUpstream;
let gw: TestGateway;
const fs = gatedAuditFile();
fs.gated = false;
const auditDir = join(mkdtempSync(join(tmpdir(), 'gatehouse-audit-gc-')), 'trail');

/** A gateway in front of the fixture upstream with `audit` (YAML), its audit file opened through `file`. */
async function auditedGateway(audit: string, file: GatedAuditFile): Promise<TestGateway> {
  const gateway = await startTestGateway(`\naudit: ${audit}\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`, process.env, { openAuditFile: file.openFile });
  await gateway.waitUp();
  return gateway;
}

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  gw = await auditedGateway(`{ dir: "${auditDir}", onFailure: closed, retryInterval: 50ms }`, fs);
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

const call = (id: number) => postJson(gw.url, modernBody(id, 'tools/call', { name: 'up__echo', arguments: { message: `m${id}` } }), modernHeaders('tools/call', 'up__echo'));

function trail(): Record<string, any>[] {
  return readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

async function counters(): Promise<{ written: number; syncs: number }> {
  const text = await (await fetch(new URL('/metrics', gw.url))).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
  return { written: read('gatehouse_audit_records_written_total'), syncs: read('gatehouse_audit_syncs_total') };
}

const verify = () => spawnSync(process.execPath, [join(REPO_ROOT, 'bin/gatehouse.js'), 'audit', 'verify', auditDir], { encoding: 'utf8' });

describe('audit group commit through the gateway', () => {
  it('lets 40 concurrent calls share fdatasyncs, each reply sent only once its record is on disk', async () => {
    // Asked before the scrape, and after it at the end: the gateway counts a sync just before
    // it asks for it, so whatever else is written meanwhile cannot make the two disagree.
    const asked = fs.asked();
    const before = await counters();
    const file = join(auditDir, 'gatehouse-audit.jsonl');
    // When a reply arrives, its record's line must end within what the last fdatasync covered.
    const durableAtReply = (id: number): boolean => {
      const text = readFileSync(file);
      const at = text.indexOf(`"rpcId":${id},`);
      return at >= 0 && text.indexOf(0x0a, at) + 1 <= fs.durableBytes();
    };
    const replies = Array.from({ length: 40 }, (_, i) => call(100 + i).then((res) => ({ res, durable: durableAtReply(100 + i) })));
    for (const { res, durable } of await Promise.all(replies)) {
      expect(res.json.result.structuredContent).toEqual({ message: expect.stringMatching(/^m1[0-3]\d$/) });
      expect(durable).toBe(true);
    }
    const after = await counters();
    const written = after.written - before.written;
    expect(written).toBeGreaterThanOrEqual(40);
    // Every barrier the gateway counts is one the file system saw, and 40 records took fewer.
    const syncs = after.syncs - before.syncs;
    expect(syncs).toBeGreaterThan(0);
    expect(syncs).toBeLessThanOrEqual(fs.asked() - asked);
    expect(syncs).toBeLessThan(written);
    expect(trail().filter((l) => l.rpcId >= 100 && l.rpcId < 140)).toHaveLength(40);
    expect(verify().status).toBe(0);
  });

  it('fails every call of a batch whose fdatasync fails, reports it, and verifies after recovery with the loss on record', async () => {
    fs.failSyncs = true;
    const failed = await Promise.all(Array.from({ length: 8 }, (_, i) => call(200 + i)));
    for (const res of failed) {
      expect(res.status).toBe(503);
      expect(res.json.error.message).toContain('audit trail cannot record');
    }
    // While failing, new calls are refused at the door, and the health signals say why.
    expect((await call(210)).status).toBe(503);
    const metrics = await (await fetch(new URL('/metrics', gw.url))).text();
    expect(Number(/^gatehouse_audit_rejected_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(8);
    expect(Number(/^gatehouse_audit_write_errors_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);

    fs.failSyncs = false;
    await expect.poll(async () => (await call(220)).status, { timeout: 10_000, interval: 100 }).toBe(200);
    expect(verify().status).toBe(0);
    const lines = trail();
    expect(lines.filter((l) => l.rpcId >= 200 && l.rpcId < 211)).toEqual([]);
    const gap = lines.find((l) => l.event === 'audit_gap');
    expect(gap).toMatchObject({ detail: { reason: 'write_failed', error: 'EIO' } });
    expect(gap!.detail.rejected).toBeGreaterThanOrEqual(9);
  });
});

describe('audit group commit waits only for the records of requests under way', () => {
  // A minute's groupCommitWait: a write that waited it out would outlast the test, so a reply
  // shows that the wait ended once nothing more was coming, or never began.
  let patient: TestGateway;
  const gate = gatedAuditFile();
  const dir = join(mkdtempSync(join(tmpdir(), 'gatehouse-audit-gc-wait-')), 'trail');
  beforeAll(async () => {
    gate.gated = false;
    patient = await auditedGateway(`{ dir: "${dir}", groupCommitWait: 60s }`, gate);
  });
  afterAll(async () => {
    await patient?.close();
  });

  const callPatient = (id: number, tool = 'up__echo', args: Record<string, unknown> = { message: `p${id}` }) =>
    postJson(patient.url, modernBody(id, 'tools/call', { name: tool, arguments: args }), modernHeaders('tools/call', tool));
  const scrape = async (): Promise<string> => (await fetch(new URL('/metrics', patient.url))).text();
  const waits = async (): Promise<number> => Number(/^gatehouse_audit_commit_waits_total (\d+)$/m.exec(await scrape())?.[1]);
  /** Echo calls answered by the upstream so far: the gateway counts each just before it hands its record to the trail. */
  const echoes = async (): Promise<number> =>
    [...(await scrape()).matchAll(/^gatehouse_requests_total\{[^}]*tool="up__echo"[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);

  it('answers a lone call without waiting, and ends a wait when the last call under way has recorded, long before groupCommitWait', async () => {
    const lone = await callPatient(1);
    expect(lone.json.result.structuredContent).toEqual({ message: 'p1' });
    expect(await waits()).toBe(0);

    // One call's fdatasync held; meanwhile three more calls are answered upstream (their
    // records wait for the next write) and a slow one is still under way.
    gate.gated = true;
    const first = callPatient(10);
    await expect.poll(() => gate.waiting()).toBe(1);
    const quick = [11, 12, 13].map((id) => callPatient(id));
    const slow = callPatient(14, 'up__slow', { ms: 5000 });
    await expect.poll(echoes, { timeout: 3000 }).toBe(5);
    gate.gated = false;
    gate.release();
    expect((await first).json.result.structuredContent).toEqual({ message: 'p10' });
    // The next write waits for the slow call's record, then takes all four together.
    const replies = await Promise.all([...quick, slow]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await waits()).toBe(1);
    const records = readFileSync(join(dir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { rpcId?: number });
    expect(records.filter((r) => r.rpcId !== undefined && r.rpcId >= 10).map((r) => r.rpcId).sort()).toEqual([10, 11, 12, 13, 14]);
  });
});

// `gatehouse audit verify | tail | query` as an operator runs them: the real binary, exit
// codes, results on stdout and problems on stderr.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listAuditFiles } from '../../src/audit/audit-files.ts';
import { openSink, requestRecord, tempDir } from './audit-fixtures.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/gatehouse.js');
const FILE = 'gatehouse-audit.jsonl';
const ROTATE = { maxBytes: 4000, maxFiles: 0 };
let dir: string;
/** seq of the last line: the 30 records and the audit_rotated event opening each new file. */
let lastSeq: number;
const scratch: string[] = [];

function gatehouse(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'audit', ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function copy(label: string): string {
  const d = tempDir(label);
  scratch.push(d);
  cpSync(dir, d, { recursive: true });
  return d;
}

beforeAll(async () => {
  dir = tempDir('cli');
  const { sink } = await openSink(dir, { rotate: ROTATE });
  for (let i = 1; i <= 30; i++) await sink.record(requestRecord(i));
  lastSeq = sink.stats().lastSeq;
  expect(lastSeq).toBe(30 + sink.stats().rotations);
  await sink.close();
});

afterAll(() => [dir, ...scratch].forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('gatehouse audit verify', () => {
  it('exits 0 with OK, the count and the last hash for an intact directory', () => {
    const r = gatehouse('verify', dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^OK: ${lastSeq} records in \\d+ files, seq 1\\.\\.${lastSeq} from genesis\\nlast hash sha256:[0-9a-f]{64}\\n$`));
    expect(r.stderr).toBe('');
  });

  it('accepts files in chain order, and reports files out of order', async () => {
    const files = await listAuditFiles(dir, FILE);
    expect(gatehouse('verify', ...files).status).toBe(0);
    const r = gatehouse('verify', files[1] ?? '', files[0] ?? '');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`BROKEN: ${files[0]}:1: seq 1 after`);
  });

  it('exits 1 naming file:line of an edited record', async () => {
    const d = copy('cli-edit');
    const target = (await listAuditFiles(d, FILE))[1] ?? '';
    const text = readFileSync(target, 'utf8');
    // The first line of a rotated file is its audit_rotated event; the edit hits a request.
    const lineNo = text.slice(0, text.indexOf('"subject":"bob"')).split('\n').length;
    writeFileSync(target, text.replace('"subject":"bob"', '"subject":"eve"'));
    const r = gatehouse('verify', d);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(`BROKEN: ${target}:${lineNo}: edited: the content does not match its "hash"\n${(await lineCount(d, 0)) + lineNo - 1} records before it verified\n`);
  });

  it('exits 0 with a warning for a last line cut short by a crash', () => {
    const d = copy('cli-crash');
    const current = path.join(d, FILE);
    truncateSync(current, readFileSync(current).length - 40);
    const r = gatehouse('verify', d);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^warning: ${current}:\\d+: incomplete last line \\(\\d+ bytes, no newline\\).*\\nOK: ${lastSeq - 1} records`));
  });

  it('exits 2 on bad usage and unreadable input', () => {
    expect(gatehouse('verify').status).toBe(2);
    const missing = gatehouse('verify', path.join(dir, 'nope.jsonl'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('ENOENT');
    expect(gatehouse('frobnicate').status).toBe(2);
  });
});

describe('gatehouse audit tail', () => {
  it('prints the last N records across rotated files, for humans or as stored JSON', () => {
    const r = gatehouse('tail', '--dir', dir, '-n', '12');
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    expect(lines.at(-1)).toMatch(new RegExp(`^2026-01-01T00:00:30\\.000Z #${lastSeq} alice tools/call github__create_issue tool_error 42ms allow by dev-tools$`));
    expect(lines.some((l) => / event audit_rotated \{/.test(l))).toBe(true);
    const json = gatehouse('tail', '--dir', dir, '-n', '2', '--json');
    expect(json.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([lastSeq - 1, lastSeq]);
  });

  it('follows new records, also across a rotation', async () => {
    const d = copy('cli-follow');
    const child = spawn(process.execPath, [BIN, 'audit', 'tail', '--dir', d, '-n', '1', '--follow', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    try {
      await vi.waitFor(() => expect(out).toContain(`"seq":${lastSeq}`), { timeout: 20_000, interval: 50 });
      const { sink } = await openSink(d, { rotate: ROTATE });
      for (let i = 31; i <= 45; i++) await sink.record(requestRecord(i));
      expect(sink.stats().rotations).toBeGreaterThan(0);
      const end = sink.stats().lastSeq;
      await sink.close();
      const seqs = (): number[] => out.trimEnd().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq);
      await vi.waitFor(() => expect(seqs().at(-1)).toBe(end), { timeout: 10_000, interval: 50 });
      expect(seqs()).toEqual(Array.from({ length: end - lastSeq + 1 }, (_, i) => lastSeq + i));
    } finally {
      child.kill();
    }
  });
});

describe('gatehouse audit query', () => {
  it('filters by principal, tool glob and outcome', () => {
    const r = gatehouse('query', '--dir', dir, '--principal', 'bob', '--tool', 'github__*', '--outcome', 'ok', '--json');
    expect(r.status).toBe(0);
    const found = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { requestId: string });
    // bob: odd i; github: i % 3 == 0; ok: i % 5 != 0.
    expect(found.map((f) => f.requestId)).toEqual(['req-3', 'req-9', 'req-21', 'req-27']);
  });

  it('filters by a half-open time range', () => {
    const r = gatehouse('query', '--dir', dir, '--since', '2026-01-01T00:00:05Z', '--until', '2026-01-01T00:00:08Z', '--json');
    expect(r.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { requestId: string }).requestId)).toEqual(['req-5', 'req-6', 'req-7']);
  });

  it('exits 2 for a time that is not ISO 8601', () => {
    const r = gatehouse('query', '--dir', dir, '--since', 'yesterday');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--since must be an ISO 8601 time');
  });
});

async function lineCount(d: string, fileIndex: number): Promise<number> {
  const files = await listAuditFiles(d, FILE);
  return readFileSync(files[fileIndex] ?? '', 'utf8').split('\n').length - 1;
}

// The hash chain as written by the real sink across rotated files, and what verification
// finds after each kind of tampering: an edit, a deletion, a forged insertion, a reorder,
// a deleted file, and a crash that cut the last line in half.
import { cpSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditFiles } from '../../src/audit/audit-files.ts';
import { canonicalRecord, chainLine } from '../../src/audit/hash-chain.ts';
import { resolveAuditFiles, verifyFiles } from '../../src/audit/verify-files.ts';
import { openSink, requestRecord, tempDir } from './audit-fixtures.ts';

const FILE = 'gatehouse-audit.jsonl';
let original: string;
/** The 100 records plus the audit_rotated event that opens each new file. */
let total: number;
const scratch: string[] = [];

function copyChain(label: string): string {
  const dir = tempDir(label);
  scratch.push(dir);
  cpSync(original, dir, { recursive: true });
  return dir;
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').slice(0, -1);
}

function rewrite(file: string, edit: (lines: string[]) => string[]): void {
  writeFileSync(file, edit(lines(file)).map((l) => `${l}\n`).join(''));
}

async function verifyDir(dir: string) {
  return verifyFiles(await resolveAuditFiles([dir]));
}

beforeAll(async () => {
  original = tempDir('chain');
  // About 560 bytes a line: 7 lines a file, so 100 records make 15 files.
  const { sink } = await openSink(original, { rotate: { maxBytes: 4000, maxFiles: 0 } });
  for (let i = 1; i <= 100; i++) await sink.record(requestRecord(i));
  expect(sink.stats().rotations).toBeGreaterThan(10);
  total = 100 + sink.stats().rotations;
  expect(sink.stats()).toMatchObject({ written: 100, lastSeq: total });
  await sink.close();
});

afterAll(() => {
  for (const dir of [original, ...scratch]) rmSync(dir, { recursive: true, force: true });
});

describe('a chain written across rotations', () => {
  it('verifies: every line from genesis, seq continuous across files', async () => {
    const files = await listAuditFiles(original, FILE);
    expect(files.length).toBeGreaterThan(10);
    expect(path.basename(files[0] ?? '')).toBe('gatehouse-audit.000000000001.jsonl');
    expect(path.basename(files.at(-1) ?? '')).toBe(FILE);
    expect(await verifyDir(original)).toMatchObject({ ok: true, records: total, firstSeq: 1, lastSeq: total, fromGenesis: true });
  });

  it('chains the first line of each rotated file to the last line of the file before', async () => {
    const [first, second] = await listAuditFiles(original, FILE);
    const last = JSON.parse(lines(first ?? '').at(-1) ?? '') as { seq: number; hash: string };
    const next = JSON.parse(lines(second ?? '')[0] ?? '') as { seq: number; prev: string };
    expect(next).toMatchObject({ seq: last.seq + 1, prev: last.hash });
  });

  it('reports an edited field at its file and line', async () => {
    const dir = copyChain('edit');
    const target = (await listAuditFiles(dir, FILE))[3] ?? '';
    rewrite(target, (ls) => ls.map((l, i) => (i === 2 ? l.replace('"outcome":"ok"', '"outcome":"denied"').replace('"outcome":"tool_error"', '"outcome":"ok"') : l)));
    const report = await verifyDir(dir);
    expect(report.broken).toMatchObject({ file: target, lineNo: 3, kind: 'edited' });
  });

  it('reports a deleted line as a seq gap at the line after it', async () => {
    const dir = copyChain('delete');
    const target = (await listAuditFiles(dir, FILE))[5] ?? '';
    rewrite(target, (ls) => ls.filter((_, i) => i !== 1));
    expect((await verifyDir(dir)).broken).toMatchObject({ file: target, lineNo: 2, kind: 'seq_gap' });
  });

  it('reports a forged line inserted with a correct own hash where the chain no longer fits', async () => {
    const dir = copyChain('insert');
    const target = (await listAuditFiles(dir, FILE))[2] ?? '';
    rewrite(target, (ls) => {
      const before = JSON.parse(ls[2] ?? '') as { seq: number; hash: string };
      const forged = chainLine(before, canonicalRecord(requestRecord(999, { principal: { subject: 'mallory', method: 'api_key', groups: [] } }))).line;
      return [...ls.slice(0, 3), forged, ...ls.slice(3)];
    });
    const report = await verifyDir(dir);
    expect(report.broken).toMatchObject({ file: target, lineNo: 5, kind: 'seq_back' });
    expect(report.broken?.message).toMatch(/inserted or lines were reordered/);
  });

  it('reports two swapped lines', async () => {
    const dir = copyChain('reorder');
    const target = (await listAuditFiles(dir, FILE))[4] ?? '';
    rewrite(target, (ls) => [ls[0], ls[2], ls[1], ...ls.slice(3)] as string[]);
    expect((await verifyDir(dir)).broken).toMatchObject({ file: target, lineNo: 2, kind: 'seq_gap' });
  });

  it('reports a deleted rotated file at the first line of the next one', async () => {
    const dir = copyChain('delete-file');
    const files = await listAuditFiles(dir, FILE);
    unlinkSync(files[6] ?? '');
    expect((await verifyDir(dir)).broken).toMatchObject({ file: files[7], lineNo: 1, kind: 'seq_gap' });
  });

  it('reports files given out of order', async () => {
    const files = await listAuditFiles(original, FILE);
    const report = await verifyFiles([files[1] ?? '', files[0] ?? '']);
    expect(report.broken).toMatchObject({ file: files[0], lineNo: 1, kind: 'seq_back' });
  });

  it('treats a half-written last line as a crash: reported as incomplete, the rest verifies, and a restarted sink continues the chain', async () => {
    const dir = copyChain('crash');
    const current = path.join(dir, FILE);
    const text = readFileSync(current, 'utf8');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    const cut = lastStart + Math.floor((text.length - lastStart) / 2);
    truncateSync(current, cut);
    const lastSeq = (JSON.parse(text.slice(lastStart)) as { seq: number }).seq;

    const report = await verifyDir(dir);
    expect(report).toMatchObject({ ok: true, records: total - 1, lastSeq: lastSeq - 1, incomplete: { file: current, bytes: cut - lastStart } });

    const { sink, logs } = await openSink(dir);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', msg: expect.stringContaining('incomplete last line'), bytes: cut - lastStart }));
    expect(readFileSync(current, 'utf8').endsWith('\n')).toBe(true);
    for (let i = 200; i < 205; i++) await sink.record(requestRecord(i));
    await sink.close();
    expect(await verifyDir(dir)).toMatchObject({ ok: true, records: total + 4, lastSeq: total + 4 });
  });

  it('resumes from the newest rotated file when the current file is missing, and keeps maxFiles rotated files', async () => {
    const dir = copyChain('resume');
    unlinkSync(path.join(dir, FILE));
    const newest = JSON.parse(lines((await listAuditFiles(dir, FILE)).at(-1) ?? '').at(-1) ?? '') as { seq: number };
    const { sink } = await openSink(dir, { rotate: { maxBytes: 4000, maxFiles: 3 } });
    for (let i = 300; i < 320; i++) await sink.record(requestRecord(i));
    await sink.close();
    const rotated = readdirSync(dir).filter((n) => n !== FILE);
    expect(rotated).toHaveLength(3);
    // Older files were deleted by the rotation budget: the chain verifies from where it now
    // starts, and its audit_rotated events say so.
    const report = await verifyDir(dir);
    expect(report).toMatchObject({ ok: true, fromGenesis: false, start: { cutBy: 'rotation', budget: { maxBytes: 4000, maxFiles: 3 } } });
    expect(report.lastSeq).toBeGreaterThan(newest.seq + 20);
  });
});

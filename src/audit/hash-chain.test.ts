import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createChainVerifier } from './chain-verifier.ts';
import { canonicalRecord, chainLine, checkLine, GENESIS_HASH, GENESIS_HEAD, type ChainHead } from './hash-chain.ts';

function chain(records: object[], from: ChainHead = GENESIS_HEAD): string[] {
  let head = from;
  return records.map((r) => {
    const { line, hash } = chainLine(head, canonicalRecord(r));
    head = { seq: head.seq + 1, hash };
    return line;
  });
}

function verify(lines: string[]) {
  const v = createChainVerifier();
  lines.every((text, i) => v.push({ file: 'f', lineNo: i + 1, text, terminated: true }));
  return v.report();
}

describe('hash chain lines', () => {
  it('put seq, prev and hash first, then the record in canonical order', () => {
    const [line] = chain([{ type: 'event', time: 't', event: 'config_loaded', detail: { b: 1, a: 2 } }]);
    expect(line).toMatch(/^\{"seq":1,"prev":"sha256:0{64}","hash":"sha256:[0-9a-f]{64}","detail":\{"a":2,"b":1\},"event":"config_loaded","time":"t","type":"event"\}$/);
  });

  it('hash the canonical JSON of {prev, record, seq}, as documented, so anyone can recompute it', () => {
    const record = { type: 'event', time: 't', event: 'config_loaded', detail: {} };
    const [line] = chain([record]);
    const parsed = JSON.parse(line ?? '') as { hash: string };
    const text = `{"prev":"${GENESIS_HASH}","record":{"detail":{},"event":"config_loaded","time":"t","type":"event"},"seq":1}`;
    expect(parsed.hash).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`);
  });

  it('refuse records that carry chain fields', () => {
    expect(() => canonicalRecord({ seq: 1 })).toThrow(/"seq"/);
    expect(() => canonicalRecord({ hash: 'x' })).toThrow(/"hash"/);
  });

  it('verify when untouched, and report the line count and last hash', () => {
    const lines = chain(Array.from({ length: 5 }, (_, i) => ({ type: 'event', i })));
    const report = verify(lines);
    expect(report).toMatchObject({ ok: true, records: 5, firstSeq: 1, lastSeq: 5, fromGenesis: true });
    expect(report.lastHash).toBe((JSON.parse(lines[4] ?? '') as { hash: string }).hash);
  });

  it('detect an edited field, an edited hash and reformatting', () => {
    const lines = chain([{ a: 1 }, { a: 2 }]);
    const edited = (lines[1] ?? '').replace('"a":2', '"a":3');
    expect(checkLine(edited, undefined)).toMatchObject({ ok: false, error: { kind: 'edited' } });
    const reformatted = JSON.stringify(JSON.parse(lines[1] ?? ''), null, 1).replace(/\n/g, '');
    expect(checkLine(reformatted, undefined)).toMatchObject({ ok: false, error: { kind: 'reformatted' } });
  });

  it('detect a deleted line as a seq gap, a swap as seq going back or jumping, and a forged line at the next one', () => {
    const lines = chain(Array.from({ length: 6 }, (_, i) => ({ i })));
    expect(verify([...lines.slice(0, 2), ...lines.slice(3)]).broken).toMatchObject({ lineNo: 3, kind: 'seq_gap' });
    const swapped = [lines[0], lines[2], lines[1], ...lines.slice(3)] as string[];
    expect(verify(swapped).broken).toMatchObject({ lineNo: 2, kind: 'seq_gap' });
    // A forged line with a correct own hash, chained to line 2: caught where the real line 3 follows it.
    const [forged] = chain([{ i: 'forged' }], { seq: 2, hash: (JSON.parse(lines[1] ?? '') as { hash: string }).hash });
    const inserted = [...lines.slice(0, 2), forged, ...lines.slice(2)] as string[];
    expect(verify(inserted).broken).toMatchObject({ lineNo: 4, kind: 'seq_back' });
  });

  it('accept a chain that starts mid-way (older files rotated away), but not a fake genesis', () => {
    const lines = chain(Array.from({ length: 4 }, (_, i) => ({ i })));
    expect(verify(lines.slice(2))).toMatchObject({ ok: true, records: 2, firstSeq: 3, fromGenesis: false });
    const fakeGenesis = chain([{ i: 'x' }], { seq: 4, hash: GENESIS_HASH });
    expect(verify(fakeGenesis).broken).toMatchObject({ kind: 'prev_mismatch' });
  });

  it('report an incomplete last line separately, and an incomplete line followed by more as a break', () => {
    const lines = chain([{ i: 1 }, { i: 2 }]);
    const v = createChainVerifier();
    v.push({ file: 'f', lineNo: 1, text: lines[0] ?? '', terminated: true });
    v.push({ file: 'f', lineNo: 2, text: (lines[1] ?? '').slice(0, 20), terminated: false });
    expect(v.report()).toMatchObject({ ok: true, records: 1, incomplete: { file: 'f', lineNo: 2, bytes: 20 } });
    v.push({ file: 'g', lineNo: 1, text: lines[1] ?? '', terminated: true });
    expect(v.report()).toMatchObject({ ok: false, broken: { file: 'f', lineNo: 2, kind: 'incomplete' } });
  });
});

import { describe, expect, it } from 'vitest';
import { createChainVerifier } from './chain-verifier.ts';
import { canonicalRecord, chainLine, type ChainHead } from './hash-chain.ts';

/** Lines seq from+1.. chained after a made-up head, as a file of a chain that lost its start. */
function lines(from: number, records: object[]): string[] {
  let head: ChainHead = { seq: from, hash: `sha256:${'ab'.repeat(32)}` };
  return records.map((r) => {
    const c = chainLine(head, canonicalRecord(r));
    head = { seq: c.seq, hash: c.hash };
    return c.line;
  });
}

const rotated = (deleted: object[]) => ({ type: 'event', time: '2026-01-01T00:01:00.000Z', event: 'audit_rotated', detail: { reason: 'maxBytes', deleted, budget: { maxBytes: 4000, maxFiles: 2 } } });
const request = { type: 'request', time: '2026-01-01T00:00:59.000Z', method: 'ping' };

function verify(texts: string[]) {
  const v = createChainVerifier();
  texts.forEach((text, i) => v.push({ file: 'f', lineNo: i + 1, text, terminated: true }));
  return v.report();
}

describe('createChainVerifier, a chain that starts mid-way', () => {
  it('says the rotation budget cut it when an audit_rotated event names the file just before', () => {
    const report = verify(lines(40, [rotated([{ file: 'a.000000000021.jsonl', firstSeq: 21, lastSeq: 40, lastTime: '2026-01-01T00:00:03.000Z' }]), request]));
    expect(report).toMatchObject({ ok: true, fromGenesis: false, firstSeq: 41 });
    expect(report.start).toEqual({ cutBy: 'rotation', file: 'a.000000000021.jsonl', fromSeq: 21, throughSeq: 40, deletedAt: '2026-01-01T00:01:00.000Z', newestTime: '2026-01-01T00:00:03.000Z', budget: { maxBytes: 4000, maxFiles: 2 } });
  });

  it('finds that event in a later file too, where the deletion happened', () => {
    const report = verify(lines(40, [request, request, rotated([{ file: 'a.000000000021.jsonl', firstSeq: 21, lastSeq: 40 }])]));
    expect(report.start).toMatchObject({ cutBy: 'rotation', throughSeq: 40 });
  });

  it('calls it unexplained when no event names the missing file', () => {
    expect(verify(lines(40, [rotated([{ file: 'a.000000000011.jsonl', firstSeq: 11, lastSeq: 20 }]), request])).start).toEqual({ cutBy: 'unexplained' });
    expect(verify(lines(40, [request])).start).toEqual({ cutBy: 'unexplained' });
  });

  it('says nothing of the start of a chain from genesis', () => {
    const first = chainLine({ seq: 0, hash: `sha256:${'0'.repeat(64)}` }, canonicalRecord(request));
    expect(verify([first.line])).toMatchObject({ ok: true, fromGenesis: true });
    expect(verify([first.line]).start).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { err, ok } from '../protocol/result.ts';
import { outcomeOf } from './observer.ts';

describe('outcomeOf', () => {
  it("maps an upstream's error by the client's era, as its answer was mapped", () => {
    // 2026-07-28 peers must not see -32002 (resource not found moved to -32602); 2025-11-25 ones keep it.
    const reply = err({ kind: 'upstream_error' as const, upstream: 'up', error: { code: -32002, message: 'Resource not found' } });
    expect(outcomeOf(reply, 'legacy')).toMatchObject({ outcome: 'error', errorCode: -32002 });
    expect(outcomeOf(reply, 'modern')).toMatchObject({ outcome: 'error', errorCode: -32602 });
  });

  it('names tool errors, approval questions and cancellations', () => {
    expect(outcomeOf(ok({ content: [], isError: true }), 'modern')).toEqual({ outcome: 'tool_error' });
    expect(outcomeOf(ok({ resultType: 'input_required' }), 'modern')).toEqual({ outcome: 'approval_required' });
    expect(outcomeOf('cancelled', 'legacy')).toEqual({ outcome: 'cancelled' });
    expect(outcomeOf(err({ kind: 'rate_limited' as const, ruleId: 'r', retryAfterMs: 1000 }), 'modern')).toMatchObject({ outcome: 'rate_limited', errorCode: -31029 });
  });
});

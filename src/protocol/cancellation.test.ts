import { describe, expect, it } from 'vitest';
import { Cancellation } from './cancellation.ts';

describe('Cancellation: an AbortController whose signal is made on demand', () => {
  it('runs its listeners once, with the reason kept, and aborts the signal made before', () => {
    const c = new Cancellation();
    const signal = c.signal;
    const seen: string[] = [];
    c.onAbort(() => seen.push('a'));
    c.onAbort(() => seen.push('b'));
    signal.addEventListener('abort', () => seen.push(`signal ${String(signal.reason)}`));
    c.abort('client gone');
    c.abort('again');
    expect(seen).toEqual(['a', 'b', 'signal client gone']);
    expect([c.aborted, c.reason, signal.aborted]).toEqual([true, 'client gone', true]);
  });

  it('hands out an already aborted signal when asked after the abort', () => {
    const c = new Cancellation();
    c.abort();
    expect(c.signal.aborted).toBe(true);
    expect((c.reason as DOMException).name).toBe('AbortError');
    expect(c.signal).toBe(c.signal);
  });

  it('stops calling a listener that stopped listening, and never calls one added after the abort', () => {
    const c = new Cancellation();
    let calls = 0;
    const stop = c.onAbort(() => calls++);
    stop();
    stop();
    c.abort();
    c.onAbort(() => calls++)();
    expect(calls).toBe(0);
  });
});

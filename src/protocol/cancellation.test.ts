import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { abortable, Cancellation, withSignal } from './cancellation.ts';

// V8's own view of an object's layout: false for one in dictionary (slow) mode.
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

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

describe('withSignal: a call\'s signal, made on first read, in a call that keeps its fast layout', () => {
  it('reads the cancellation\'s signal, is copied by a spread, and leaves the object in fast mode', () => {
    const cancellation = new Cancellation();
    const call = withSignal({ id: 1, method: 'tools/call', cancellation });
    expect(call.signal).toBe(cancellation.signal);
    expect(Object.keys(call)).toEqual(['id', 'method', 'cancellation', 'signal']);
    const copy = { ...call, params: {} };
    expect(copy.signal).toBe(cancellation.signal);
    cancellation.abort('gone');
    expect([call.signal.aborted, copy.signal.reason]).toEqual([true, 'gone']);
    // The getter written in the object literal it replaces put every call in dictionary mode.
    const literal = { id: 2, cancellation, get signal() { return cancellation.signal; } };
    expect([hasFastProperties(call), hasFastProperties(literal)]).toEqual([true, false]);
  });

  it('gives two calls the same layout', () => {
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
    const a = withSignal({ id: 1, cancellation: new Cancellation() });
    const b = withSignal({ id: 2, cancellation: new Cancellation() });
    expect(sameMap(a, b)).toBe(true);
  });
});

describe('abortable: an AbortSignal listened to like a Cancellation', () => {
  it('reports the abort and its reason, calls a listener once, and one that stopped listening not at all', () => {
    const controller = new AbortController();
    const a = abortable(controller.signal);
    let first = 0;
    let second = 0;
    a.onAbort(() => first++);
    a.onAbort(() => second++)();
    expect(a.aborted).toBe(false);
    controller.abort('why');
    controller.abort('again');
    expect([a.aborted, a.reason, first, second, hasFastProperties(a)]).toEqual([true, 'why', 1, 0, true]);
    let late = 0;
    a.onAbort(() => late++)();
    expect(late).toBe(0);
  });
});

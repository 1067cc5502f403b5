import { abortable } from '../protocol/cancellation.ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConcurrencyGate, type Entry, type Release } from './concurrency-gate.ts';

const limits = { maxConcurrent: 3, maxConcurrentPerPrincipal: 2, maxQueued: 3, queueTimeoutMs: 1000 };

function held(e: Entry | Promise<Entry>): Release {
  if (e instanceof Promise || !e.ok) throw new Error(`expected a place at once, got ${JSON.stringify(e)}`);
  return e.value;
}

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('ConcurrencyGate', () => {
  it('runs up to the per-principal cap at once, queues the next and refuses past twice the cap', async () => {
    const gate = new ConcurrencyGate('up', limits);
    const a1 = held(gate.enter('alice'));
    held(gate.enter('alice'));
    const a3 = gate.enter('alice');
    expect(a3).toBeInstanceOf(Promise);
    gate.enter('alice');
    expect(gate.enter('alice')).toMatchObject({ ok: false, error: { kind: 'over_capacity', limit: 'maxConcurrentPerPrincipal' } });
    expect(gate.load()).toEqual({ running: 2, queued: 2 });
    // Another principal is not held up by Alice's queue: the upstream has room.
    held(gate.enter('bob'));
    a1();
    expect(await a3).toMatchObject({ ok: true });
    expect(gate.load()).toEqual({ running: 3, queued: 1 });
  });

  it('gives a freed place to the first waiter that may run, past one at its own cap', async () => {
    const gate = new ConcurrencyGate('up', limits);
    const a1 = held(gate.enter('alice'));
    held(gate.enter('alice'));
    const c1 = held(gate.enter('carol'));
    // The upstream is full; Alice waits first, Bob second.
    const a3 = gate.enter('alice') as Promise<Entry>;
    const b1 = gate.enter('bob') as Promise<Entry>;
    c1();
    // Carol's place cannot go to Alice, who still runs her two: it goes to Bob.
    expect(await b1).toMatchObject({ ok: true });
    expect(gate.load()).toEqual({ running: 3, queued: 1 });
    a1();
    expect(await a3).toMatchObject({ ok: true });
    expect(gate.load()).toEqual({ running: 3, queued: 0 });
  });

  it('takes new limits with its calls still counted: a longer queue refuses later, a higher cap starts a waiter', async () => {
    const gate = new ConcurrencyGate('up', { ...limits, maxConcurrent: 1, maxQueued: 1 });
    const a1 = held(gate.enter('alice'));
    const waiting = gate.enter('bob') as Promise<Entry>;
    gate.resize({ ...limits, maxConcurrent: 1, maxQueued: 2 });
    // The running call still holds the one place: a new call waits, in the longer queue.
    const third = gate.enter('carol');
    expect(third).toBeInstanceOf(Promise);
    expect(gate.load()).toEqual({ running: 1, queued: 2 });
    gate.resize({ ...limits, maxConcurrent: 2, maxQueued: 2 });
    expect(await waiting).toMatchObject({ ok: true });
    expect(gate.load()).toEqual({ running: 2, queued: 1 });
    a1();
    expect(await third).toMatchObject({ ok: true });
  });

  it('refuses a call once the queue is full, and one that waited past queueTimeout', async () => {
    const gate = new ConcurrencyGate('up', { ...limits, maxConcurrent: 1, maxQueued: 1 });
    held(gate.enter('alice'));
    const waiting = gate.enter('bob') as Promise<Entry>;
    expect(gate.enter('carol')).toMatchObject({ ok: false, error: { limit: 'maxQueuedCalls', retryAfterMs: 1000 } });
    vi.advanceTimersByTime(1000);
    const timedOut = await waiting;
    expect(timedOut).toMatchObject({ ok: false, error: { kind: 'over_capacity', limit: 'queueTimeout' } });
    expect(!timedOut.ok && timedOut.error.kind === 'over_capacity' && timedOut.error.message).toContain('within 1000 ms (limits.queueTimeout)');
    expect(gate.load()).toEqual({ running: 1, queued: 0 });
  });

  it('drops a waiter whose call is cancelled, and releases a place only once', async () => {
    const gate = new ConcurrencyGate('up', { ...limits, maxConcurrent: 1 });
    const first = held(gate.enter('alice'));
    const abort = new AbortController();
    const waiting = gate.enter('bob', abortable(abort.signal)) as Promise<Entry>;
    abort.abort();
    expect(await waiting).toMatchObject({ ok: false, error: { kind: 'internal' } });
    expect(gate.load()).toEqual({ running: 1, queued: 0 });
    first();
    first();
    expect(gate.load()).toEqual({ running: 0, queued: 0 });
    held(gate.enter('carol'));
    expect(gate.enter('dave')).toBeInstanceOf(Promise);
  });

  it('tells of each call that waits because the upstream runs maxConcurrent calls, not of one held by its own share', () => {
    let full = 0;
    const gate = new ConcurrencyGate('up', { ...limits, maxConcurrent: 2 }, () => full++);
    held(gate.enter('alice'));
    held(gate.enter('alice'));
    // Alice is at her own share and the upstream is full: either way she waits; counted once.
    expect(gate.enter('alice')).toBeInstanceOf(Promise);
    expect(gate.enter('bob')).toBeInstanceOf(Promise);
    expect(full).toBe(2);
    const own = new ConcurrencyGate('up', { ...limits, maxConcurrent: 10 }, () => full++);
    held(own.enter('carol'));
    held(own.enter('carol'));
    expect(own.enter('carol')).toBeInstanceOf(Promise);
    expect(full).toBe(2);
  });
});

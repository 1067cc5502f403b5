import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DrainState } from './drain-state.ts';

// Only the 'close' event of a response matters here.
const response = (): ServerResponse & EventEmitter => new EventEmitter() as ServerResponse & EventEmitter;

describe('DrainState', () => {
  it('is settled at once with nothing in flight', async () => {
    await expect(new DrainState().settled(10_000)).resolves.toBe(true);
  });

  it('settles when the last response in flight closes', async () => {
    const state = new DrainState();
    const [a, b] = [response(), response()];
    state.track(a);
    state.track(b);
    expect(state.inFlight).toBe(2);
    const settled = state.settled(10_000);
    a.emit('close');
    expect(state.inFlight).toBe(1);
    b.emit('close');
    await expect(settled).resolves.toBe(true);
  });

  it('gives up at the deadline with the request still counted', async () => {
    const state = new DrainState();
    state.track(response());
    await expect(state.settled(5)).resolves.toBe(false);
    expect(state.inFlight).toBe(1);
  });

  it('says draining only after begin', () => {
    const state = new DrainState();
    expect(state.draining).toBe(false);
    state.begin();
    expect(state.draining).toBe(true);
  });
});

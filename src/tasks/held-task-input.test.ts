import { describe, expect, it } from 'vitest';
import type { Reply } from '../protocol/call.ts';
import type { ClientAsk } from '../protocol/client-ask.ts';
import { ok } from '../protocol/result.ts';
import { HeldTaskInputs, MAX_HELD_READS_PER_PRINCIPAL, type ReadRun } from './held-task-input.ts';

const CAPS = { elicitation: {} };
const QUESTION = { message: 'Which name?', requestedSchema: { type: 'object', properties: {} } };

/** A read whose upstream side the test drives: what it asks, and when it ends. */
function read() {
  let ask: ClientAsk | undefined;
  let end: ((r: Reply) => void) | undefined;
  let signal: AbortSignal | undefined;
  const run: ReadRun = (a, s) => {
    ask = a;
    signal = s;
    s.addEventListener('abort', () => end?.(ok({ aborted: true })));
    return new Promise<Reply>((resolve) => (end = resolve));
  };
  return { run, ask: (...args: Parameters<ClientAsk>) => ask!(...args), end: (r: Reply) => end!(r), aborted: () => signal?.aborted };
}

describe('held task input', () => {
  it("shows an upstream's question under a key of its own until answered, and answers it upstream", async () => {
    const inputs = new HeldTaskInputs();
    const r = read();
    const first = inputs.poll('t1', 'alice', CAPS, r.run, 60_000);
    const second = inputs.poll('t1', 'alice', CAPS, r.run, 60_000);
    const answer = r.ask('elicitation/create', QUESTION, 1000);
    const view = await first;
    expect(await second).toEqual(view);
    expect(view).toEqual({ kind: 'asking', asked: [{ key: 'q1-1', method: 'elicitation/create', params: QUESTION }] });
    expect(await inputs.poll('t1', 'alice', CAPS, r.run, 0)).toEqual(view);
    expect(inputs.answer('t1', { 'q1-1': 'yes' }).ok).toBe(false);
    expect(inputs.answer('t1', { other: { action: 'accept' }, 'q1-1': { action: 'accept', content: { name: 'Ada' } } })).toEqual(ok(1));
    expect(await answer).toEqual(ok({ action: 'accept', content: { name: 'Ada' } }));
    expect(await inputs.poll('t1', 'alice', CAPS, r.run, 0)).toEqual({ kind: 'quiet' });
    r.end(ok({ content: [] }));
    await expect.poll(() => inputs.size()).toBe(0);
  });

  it('refuses at once a question the polling request did not declare the capability for', async () => {
    const inputs = new HeldTaskInputs();
    const r = read();
    void inputs.poll('t1', 'alice', {}, r.run, 0);
    expect(await r.ask('elicitation/create', QUESTION, 1000)).toMatchObject({ ok: false, error: { kind: 'undeclared' } });
  });

  it('shows the end of a read that ended while it was awaited, and answers its open questions with an error', async () => {
    const inputs = new HeldTaskInputs();
    const r = read();
    void inputs.poll('t1', 'alice', CAPS, r.run, 0);
    const pending = r.ask('elicitation/create', QUESTION, 1000);
    const waiting = inputs.poll('t1', 'alice', CAPS, r.run, 0);
    expect((await waiting)?.kind).toBe('asking');
    inputs.drop('t1');
    expect(r.aborted()).toBe(true);
    expect(await pending).toMatchObject({ ok: false, error: { kind: 'unanswered' } });
    expect(inputs.answer('t1', { 'q1-1': { action: 'accept' } })).toEqual(ok(0));
  });

  it('holds at most its bound of reads per principal: past it, none is opened', async () => {
    const inputs = new HeldTaskInputs();
    for (let i = 0; i < MAX_HELD_READS_PER_PRINCIPAL; i++) expect(await inputs.poll(`t${i}`, 'alice', CAPS, read().run, 0)).toEqual({ kind: 'quiet' });
    expect(await inputs.poll('one-more', 'alice', CAPS, read().run, 0)).toBeUndefined();
    expect(await inputs.poll('bobs', 'bob', CAPS, read().run, 0)).toEqual({ kind: 'quiet' });
    inputs.closeAll();
    await expect.poll(() => inputs.size()).toBe(0);
  });
});

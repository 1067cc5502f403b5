import { describe, expect, it } from 'vitest';
import { createSealer } from '../approvals/sealed-token.ts';
import type { StateSealer } from '../approvals/user-approval.ts';
import type { Reply } from '../protocol/call.ts';
import type { ClientAsk } from '../protocol/client-ask.ts';
import { isJsonObject, type JsonObject } from '../protocol/message.ts';
import { ok } from '../protocol/result.ts';
import { SuspendedCalls, type Attached, type SuspensionBounds } from './suspended-calls.ts';
import { bindingOf, inputRequiredResult, openRound, sealRound } from './suspension-state.ts';
import { declaresForRequest } from '../protocol/client-ask.ts';

const sealing = createSealer(['3'.repeat(64)]);
const sealer: StateSealer = {
  seal: (p) => sealing.seal(p, 'mrtr'),
  unseal: (t) => {
    const r = sealing.unseal(t, 'mrtr');
    return r.ok && isJsonObject(r.value) ? r.value : undefined;
  },
  consumeOnce: async () => true,
};
const binding = bindingOf('key:bob', 'tools/call', 'l', { name: 'ask', arguments: { what: 'x' } });
const attached = (caps: JsonObject = { elicitation: {} }): Attached => ({ signal: new AbortController().signal, notify: () => undefined, caps });

/** An upstream call that asks once, then returns what it was told. */
function asking(): { run: (s: AbortSignal, n: unknown, ask: ClientAsk) => Promise<Reply>; aborted: () => boolean } {
  let signal: AbortSignal | undefined;
  return {
    run: async (s, _n, ask) => {
      signal = s;
      const a = await ask('elicitation/create', { message: 'name?', requestedSchema: { type: 'object', properties: {} } }, 1000);
      return ok({ content: [{ type: 'text', text: JSON.stringify(a) }] });
    },
    aborted: () => signal?.aborted ?? false,
  };
}

describe('suspension state', () => {
  it('opens only for the same principal, call and replica, before its expiry', () => {
    const token = sealRound(sealer, binding, { handle: 'h', round: 1, replica: 'r1', expiresAt: 1000 });
    expect(openRound(sealer, token, binding, 'r1', 999)).toEqual(ok({ handle: 'h', round: 1 }));
    expect(openRound(sealer, token, { ...binding, owner: 'key:eve' }, 'r1', 0)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/another principal/) } });
    expect(openRound(sealer, token, bindingOf('key:bob', 'tools/call', 'l', { name: 'ask', arguments: { what: 'y' } }), 'r1', 0)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/arguments changed/) } });
    expect(openRound(sealer, token, binding, 'r2', 0)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/another Gatehouse replica \(r1\)/) } });
    expect(openRound(sealer, token, binding, 'r1', 1001)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/waited too long/) } });
    // An approval's state (another kind) never opens as one of these.
    expect(openRound(sealer, sealer.seal({ k: 'ask', o: 'key:bob' }), binding, 'r1', 0)).toMatchObject({ ok: false, error: { kind: 'invalid_params', message: expect.stringMatching(/not issued/) } });
  });

  it('offers only what the request declared, by elicitation mode and sampling tools', () => {
    expect(declaresForRequest('elicitation/create', { mode: 'url' }, { elicitation: {} })).toBe(false);
    expect(declaresForRequest('elicitation/create', { mode: 'url' }, { elicitation: { url: {} } })).toBe(true);
    expect(declaresForRequest('elicitation/create', {}, { elicitation: { url: {} } })).toBe(false);
    expect(declaresForRequest('sampling/createMessage', { tools: [] }, { sampling: {} })).toBe(false);
    expect(declaresForRequest('sampling/createMessage', {}, { sampling: {} })).toBe(true);
    expect(declaresForRequest('roots/list', {}, {})).toBe(false);
  });

  it('shows the client no 2025-only fields', () => {
    const r = inputRequiredResult([{ key: 'k', method: 'elicitation/create', params: { mode: 'url', url: 'https://x', message: 'm', elicitationId: 'e', _meta: { a: 1 } } }, { key: 'r', method: 'roots/list', params: {} }], 'S');
    expect(r).toEqual({ resultType: 'input_required', requestState: 'S', inputRequests: { k: { method: 'elicitation/create', params: { mode: 'url', url: 'https://x', message: 'm' } }, r: { method: 'roots/list' } } });
  });
});

describe('SuspendedCalls', () => {
  const calls = (over: Partial<SuspensionBounds> & { onLimit?: (l: string) => void } = {}) => {
    const { onLimit, ...bounds } = over;
    return new SuspendedCalls({ sealer, bounds: () => ({ timeoutMs: 60_000, maxCalls: 10, maxPerPrincipal: 10, ...bounds }), now: () => 0, replica: 'r1', ...(onLimit ? { onLimit } : {}) });
  };

  it('asks, takes the answer once, and returns the upstream result', async () => {
    const registry = calls();
    const up = asking();
    const sc = registry.start(binding, attached(), up.run);
    const step = await sc.next(attached());
    if (step.kind !== 'ask') throw new Error('expected questions');
    expect(registry.size()).toBe(1);
    const taken = registry.resume(step.requestState, binding);
    expect(taken.ok).toBe(true);
    expect(registry.resume(step.requestState, binding)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/already used/) } });
    expect(sc.answer({ [step.asked[0]!.key]: 'not an object' })).toMatchObject({ ok: false });
    expect(sc.answer({ [step.asked[0]!.key]: { action: 'accept', content: { n: 1 } } })).toEqual(ok(undefined));
    const done = await sc.next(attached());
    expect(done).toMatchObject({ kind: 'done', reply: { ok: true } });
    expect(registry.size()).toBe(0);
  });

  it('refuses the upstream at once past the per-principal cap, and counts it', async () => {
    const hits: string[] = [];
    const registry = calls({ maxPerPrincipal: 1, onLimit: (l) => hits.push(l) });
    await registry.start(binding, attached(), asking().run).next(attached());
    const second = await registry.start(binding, attached(), asking().run).next(attached());
    expect(second).toMatchObject({ kind: 'done', reply: { ok: true, value: { content: [{ text: expect.stringMatching(/too many calls/) }] } } });
    expect(hits).toEqual(['maxSuspendedCallsPerPrincipal']);
  });

  it('an undeclared capability is refused without holding anything', async () => {
    const registry = calls();
    const step = await registry.start(binding, attached({}), asking().run).next(attached({}));
    expect(step).toMatchObject({ kind: 'done', reply: { value: { content: [{ text: expect.stringMatching(/undeclared/) }] } } });
    expect(registry.size()).toBe(0);
  });

  it('cancels the upstream call when the deadline passes without a retry, or on shutdown', async () => {
    const hits: string[] = [];
    const registry = calls({ timeoutMs: 5, onLimit: (l) => hits.push(l) });
    const up = asking();
    await registry.start(binding, attached(), up.run).next(attached());
    await expect.poll(up.aborted).toBe(true);
    expect(hits).toEqual(['inputTimeout']);
    expect(registry.size()).toBe(0);
    const slow = calls();
    const up2 = asking();
    await slow.start(binding, attached(), up2.run).next(attached());
    slow.closeAll();
    expect(up2.aborted()).toBe(true);
    expect(slow.size()).toBe(0);
  });
});

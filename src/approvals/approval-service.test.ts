import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryLogger } from '../telemetry/logger.ts';
import { approvalDraft, approvalsConfig } from '../../test/harness/approvals.ts';
import type { ApprovalOutcome, ApprovalRequest } from './approval.ts';
import { createMemoryApprovalStore, type ApprovalStore } from './approval-store.ts';
import { createApprovalService, type ApprovalAuditDetail, type ApprovalAuditEvent, type ApprovalServiceDeps } from './approval-service.ts';
import type { WebhookChannel, WebhookResult } from './channels/webhook-channel.ts';

function setup(overrides: Partial<ApprovalServiceDeps> = {}) {
  const events: { event: ApprovalAuditEvent; detail: ApprovalAuditDetail }[] = [];
  const { logger, lines } = createMemoryLogger();
  const store = overrides.store ?? createMemoryApprovalStore();
  const service = createApprovalService({
    config: approvalsConfig(),
    store,
    logger,
    audit: (event, detail) => events.push({ event, detail }),
    waitingIntervalMs: 20,
    ...overrides,
  });
  return { service, store, events, lines };
}

/** Starts a request and resolves with the created approval as soon as it exists. */
function start(service: ReturnType<typeof setup>['service'], draft = approvalDraft({ channel: 'console' }), opts: { timeoutMs?: number; signal?: AbortSignal; onWaiting?: (ms: number) => void } = {}) {
  let created!: (r: ApprovalRequest) => void;
  const createdP = new Promise<ApprovalRequest>((r) => (created = r));
  const outcome = service.request(draft, { signal: opts.signal ?? new AbortController().signal, onCreated: created, ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}), ...(opts.onWaiting ? { onWaiting: opts.onWaiting } : {}) });
  return { outcome, created: createdP };
}

// Waits pass on fake timers (and Date) where a test needs time to go by.
afterEach(() => void vi.useRealTimers());

describe('approval service', () => {
  it('a console approval resolves the waiting call at once, and both steps are audited', async () => {
    const { service, events } = setup();
    const { outcome, created } = start(service);
    const request = await created;
    expect((await service.pending('console')).map((r) => r.id)).toEqual([request.id]);
    const decided = await service.decide(request.id, 'approved', 'carol', 'console');
    expect(decided).toMatchObject({ ok: true, value: { decision: 'approved', by: 'carol', channel: 'console' } });
    expect(await outcome).toMatchObject({ decision: 'approved', by: 'carol', channel: 'console' });
    expect(await service.pending()).toEqual([]);
    expect(events.map((e) => e.event)).toEqual(['approval_requested', 'approval_decided']);
    expect(events[0]?.detail).toMatchObject({ id: request.id, channel: 'console', subject: 'bob', upstream: 'files', name: 'files__delete', ruleId: 'deletes-need-approval', argumentsDigest: request.argumentsDigest });
    expect(events[1]?.detail).toMatchObject({ id: request.id, decision: 'approved', by: 'carol', decidedVia: 'console' });
    expect(typeof events[1]?.detail.at).toBe('number');
  });

  it('a denial resolves denied; a second decision is refused and changes nothing', async () => {
    const { service, events } = setup();
    const { outcome, created } = start(service);
    const { id } = await created;
    expect((await service.decide(id, 'denied', 'carol', 'console', 'not today')).ok).toBe(true);
    expect(await outcome).toMatchObject({ decision: 'denied', by: 'carol', reason: 'not today' });
    expect(await service.decide(id, 'approved', 'dave', 'console')).toMatchObject({ ok: false, error: { kind: 'already_decided', outcome: { decision: 'denied' } } });
    expect(events.filter((e) => e.event === 'approval_decided')).toHaveLength(1);
  });

  it('no decision within the timeout: expired (fail closed)', async () => {
    vi.useFakeTimers();
    const { service, events } = setup();
    let outcome: ApprovalOutcome | undefined;
    const waiting = service.request(approvalDraft({ channel: 'console' }), { signal: new AbortController().signal, timeoutMs: 80 }).then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(79);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(outcome).toMatchObject({ decision: 'expired', by: 'gatehouse', channel: 'console' });
    expect(events.at(-1)).toMatchObject({ event: 'approval_decided', detail: { decision: 'expired', by: 'gatehouse' } });
    expect(await service.pending()).toEqual([]);
  });

  it('the caller going away cancels the approval and takes it off the list', async () => {
    const { service } = setup();
    const controller = new AbortController();
    const { outcome, created } = start(service, undefined, { signal: controller.signal });
    const { id } = await created;
    controller.abort();
    expect(await outcome).toMatchObject({ decision: 'cancelled' });
    expect(await service.pending()).toEqual([]);
    expect(await service.decide(id, 'approved', 'carol', 'console')).toMatchObject({ ok: false, error: { kind: 'already_decided' } });
  });

  it('an already-aborted caller creates nothing', async () => {
    const { service, events } = setup();
    const controller = new AbortController();
    controller.abort();
    expect(await service.request(approvalDraft({ channel: 'console' }), { signal: controller.signal })).toMatchObject({ decision: 'cancelled' });
    expect(events).toEqual([]);
  });

  it('an abort that lands while the approval is being created still cancels it', async () => {
    const { service } = setup();
    const controller = new AbortController();
    const outcome = await service.request(approvalDraft({ channel: 'console' }), { signal: controller.signal, onCreated: () => controller.abort() });
    expect(outcome).toMatchObject({ decision: 'cancelled' });
    expect(await service.pending()).toEqual([]);
  });

  it('calls onWaiting every interval while waiting, and never after', async () => {
    vi.useFakeTimers();
    const { service } = setup();
    const ticks: number[] = [];
    const { outcome, created } = start(service, undefined, { onWaiting: (ms) => ticks.push(ms) });
    const { id } = await created;
    await vi.advanceTimersByTimeAsync(110);
    await service.decide(id, 'approved', 'carol', 'console');
    await outcome;
    const seen = ticks.length;
    expect(seen).toBeGreaterThanOrEqual(2);
    expect(ticks).toEqual([...ticks].sort((a, b) => a - b));
    // Three more intervals go by: a ticker left running would have called again.
    await vi.advanceTimersByTimeAsync(60);
    expect(ticks.length).toBe(seen);
  });

  it('an approval after the expiry is refused, even before the timer fires', async () => {
    let now = Date.now();
    const { service } = setup({ now: () => now });
    const { outcome, created } = start(service, undefined, { timeoutMs: 200 });
    const { id } = await created;
    now += 200;
    expect(await service.decide(id, 'approved', 'carol', 'console')).toEqual({ ok: false, error: { kind: 'expired' } });
    expect(await outcome).toMatchObject({ decision: 'expired' });
  });

  it('refuses a decision through another channel than the rule named', async () => {
    const { service } = setup();
    const { outcome, created } = start(service);
    const { id } = await created;
    expect(await service.decide(id, 'approved', 'hook', 'webhook')).toEqual({ ok: false, error: { kind: 'wrong_channel' } });
    expect(await service.decide(id, 'approved', 'bob', 'user')).toEqual({ ok: false, error: { kind: 'wrong_channel' } });
    await service.decide(id, 'denied', 'carol', 'console');
    expect(await outcome).toMatchObject({ decision: 'denied' });
  });

  it('an approver may deny but not approve their own call unless configured', async () => {
    const { service } = setup();
    const first = start(service);
    const a = await first.created;
    expect(await service.decide(a.id, 'approved', 'bob', 'console')).toEqual({ ok: false, error: { kind: 'self_approval' } });
    expect((await service.decide(a.id, 'denied', 'bob', 'console')).ok).toBe(true);
    await first.outcome;

    const lax = setup({ config: approvalsConfig({ console: { approvers: { subjects: ['bob'], groups: [] }, allowSelfApproval: true } }) });
    const second = start(lax.service);
    expect((await lax.service.decide((await second.created).id, 'approved', 'bob', 'console')).ok).toBe(true);
    expect(await second.outcome).toMatchObject({ decision: 'approved' });
  });

  it('fails closed when the channel is not configured', async () => {
    const { service, events } = setup({ config: approvalsConfig({ console: undefined }) });
    const signal = new AbortController().signal;
    expect(await service.request(approvalDraft({ channel: 'console' }), { signal })).toMatchObject({ decision: 'denied', reason: expect.stringMatching(/console approval channel is not configured/) });
    expect(await service.request(approvalDraft({ channel: 'webhook' }), { signal })).toMatchObject({ decision: 'denied', reason: expect.stringMatching(/webhook approval channel is not configured/) });
    expect(events).toEqual([]);
  });

  it('fails closed beyond maxPending', async () => {
    const { service } = setup({ config: approvalsConfig({ maxPending: 1 }) });
    const first = start(service);
    const { id } = await first.created;
    expect(await service.request(approvalDraft({ channel: 'console' }), { signal: new AbortController().signal })).toMatchObject({ decision: 'denied', reason: expect.stringMatching(/too many pending/) });
    await service.decide(id, 'denied', 'carol', 'console');
    await first.outcome;
  });

  it('keeps one principal within maxPendingPerPrincipal, so others can still be asked', async () => {
    const { service, events } = setup({ config: approvalsConfig({ maxPending: 10, maxPendingPerPrincipal: 2 }) });
    const bob = (n: number) => approvalDraft({ channel: 'console', principal: { subject: 'bob', authContext: 'key:bob', groups: [] }, argumentsDigest: `d${n}` });
    const first = start(service, bob(1));
    const second = start(service, bob(2));
    const [a] = await Promise.all([first.created, second.created]);
    const refused = await service.request(bob(3), { signal: new AbortController().signal });
    expect(refused).toMatchObject({ decision: 'denied', limit: 'maxPendingPerPrincipal', reason: expect.stringContaining('approvals.maxPendingPerPrincipal') });
    // Dave's first request is still asked for.
    const dave = start(service, approvalDraft({ channel: 'console', principal: { subject: 'dave', authContext: 'key:dave', groups: [] } }));
    const d = await dave.created;
    expect(events.filter((e) => e.event === 'approval_requested').map((e) => e.detail.subject)).toEqual(['bob', 'bob', 'dave']);
    // A decided approval frees its place.
    await service.decide(a.id, 'denied', 'carol', 'console');
    await first.outcome;
    const again = start(service, bob(4));
    await again.created;
    for (const { created, outcome } of [second, dave, again]) {
      await service.decide((await created).id, 'denied', 'carol', 'console');
      await outcome;
    }
    expect(d.principal.subject).toBe('dave');
  });

  it('says which cap refused a request: everyone\'s maxPending before a principal\'s own share', async () => {
    const { service } = setup({ config: approvalsConfig({ maxPending: 1, maxPendingPerPrincipal: 1 }) });
    const first = start(service);
    const { id } = await first.created;
    const other = approvalDraft({ channel: 'console', principal: { subject: 'erin', authContext: 'key:erin', groups: [] } });
    expect(await service.request(other, { signal: new AbortController().signal })).toMatchObject({ decision: 'denied', limit: 'maxPending' });
    await service.decide(id, 'denied', 'carol', 'console');
    await first.outcome;
  });

  it('fails closed when the store is down, and logs it', async () => {
    const broken: ApprovalStore = { ...createMemoryApprovalStore(), countPending: () => Promise.reject(new Error('ECONNREFUSED')) };
    const { service, lines } = setup({ store: broken });
    expect(await service.request(approvalDraft({ channel: 'console' }), { signal: new AbortController().signal })).toMatchObject({ decision: 'denied', reason: 'the approval store is unavailable' });
    expect(lines.some((l) => l['msg'] === 'approval store unavailable')).toBe(true);
  });

  it('a user-channel approval waits for its caller to report the answer', async () => {
    const { service } = setup();
    const { outcome, created } = start(service, approvalDraft({ channel: 'user' }));
    const { id } = await created;
    expect(await service.decide(id, 'approved', 'carol', 'console')).toEqual({ ok: false, error: { kind: 'wrong_channel' } });
    await service.decide(id, 'approved', 'bob', 'user');
    expect(await outcome).toMatchObject({ decision: 'approved', by: 'bob', channel: 'user' });
  });

  describe('webhook channel', () => {
    const webhookConfig = approvalsConfig({ publicUrl: 'https://gw.test', webhook: { url: 'https://hook.test', secret: 's'.repeat(32), timeoutMs: 1000, retries: 0, redact: false } });
    const channel = (result: WebhookResult | Promise<WebhookResult>): WebhookChannel => ({ deliver: async () => result });

    it('takes a decision from the webhook response', async () => {
      const { service, events } = setup({ config: webhookConfig, webhook: channel({ kind: 'decided', decision: { decision: 'approved', by: 'pagerduty:alice', reason: undefined, id: undefined } }) });
      const outcome = await service.request(approvalDraft({ channel: 'webhook' }), { signal: new AbortController().signal });
      expect(outcome).toMatchObject({ decision: 'approved', by: 'pagerduty:alice', channel: 'webhook' });
      expect(events.at(-1)).toMatchObject({ event: 'approval_decided', detail: { decidedVia: 'webhook', by: 'pagerduty:alice' } });
    });

    it('fails closed when delivery fails', async () => {
      const { service } = setup({ config: webhookConfig, webhook: channel({ kind: 'failed', reason: 'the webhook answered HTTP 500' }) });
      const outcome = await service.request(approvalDraft({ channel: 'webhook' }), { signal: new AbortController().signal });
      expect(outcome).toMatchObject({ decision: 'denied', by: 'gatehouse', reason: 'webhook delivery failed: the webhook answered HTTP 500' });
    });

    it('after an acknowledgement, waits for the callback decision', async () => {
      vi.useFakeTimers();
      const { service } = setup({ config: webhookConfig, webhook: channel({ kind: 'accepted' }) });
      const { outcome, created } = start(service, approvalDraft({ channel: 'webhook' }));
      const { id } = await created;
      // A waiting interval goes by, the acknowledgement long since handled.
      await vi.advanceTimersByTimeAsync(20);
      await service.decide(id, 'denied', 'ops-bot', 'webhook');
      expect(await outcome).toMatchObject({ decision: 'denied', by: 'ops-bot', channel: 'webhook' });
    });
  });

  it('seals and unseals with the configured keys', () => {
    const { service } = setup();
    const token = service.seal({ id: 'x', exp: 1 }, 'mrtr');
    expect(service.unseal(token, 'mrtr')).toEqual({ ok: true, value: { id: 'x', exp: 1 } });
    expect(service.unseal(token.slice(0, -2) + 'AA', 'mrtr').ok).toBe(false);
  });
});

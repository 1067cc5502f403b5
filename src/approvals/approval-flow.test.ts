// The approval flow in-process: which channel a rule's approval goes to, what the pipeline is
// told to do next, and the record of it (channel, decision, who, id, time waited). The held
// channels' service is a function here; test/e2e runs the same flow against real clients.
import { describe, expect, it } from 'vitest';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import type { Call } from '../protocol/call.ts';
import { testCall } from '../../test/fixtures/calls.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ok } from '../protocol/result.ts';
import type { Decision } from '../policy/decision.ts';
import type { ApprovalOutcome, ApprovalRequest } from './approval.ts';
import { runApproval, type ApprovalDeps, type FlowTarget } from './approval-flow.ts';
import type { ApprovalChannel } from './channels/registry.ts';

const target: FlowTarget = { method: 'tools/call', upstream: 'up', name: 'up__deploy', upstreamName: 'deploy', arguments: { env: 'prod' }, ruleId: 'deploys' };

function call(extra: Partial<Call> = {}): Call {
  return testCall({
    params: { name: 'up__deploy', arguments: { env: 'prod' } },
    principal: { ...ANONYMOUS_PRINCIPAL, subject: 'alice', method: 'api_key', authContext: 'k:alice' },
    authContext: 'k:alice',
    ...extra,
  });
}

const decision = (approver: string, fallback?: string): Decision => ({ effect: 'approve', ruleId: 'deploys', reason: 'needs approval', approval: { approver, ...(fallback ? { fallback } : {}) } }) as Decision;

function deps(channels: ApprovalChannel[], outcome: Omit<ApprovalOutcome, 'at'>): ApprovalDeps & { asked: Omit<ApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>[] } {
  const asked: Omit<ApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>[] = [];
  return {
    asked,
    sealer: { seal: (p: JsonObject) => JSON.stringify(p), unseal: (t: string) => JSON.parse(t) as JsonObject, consumeOnce: async () => true },
    defaultTimeoutMs: 60_000,
    channels: new Set(channels),
    request: async (req, opts) => {
      asked.push(req);
      opts.onCreated?.({ ...req, id: 'appr-1', createdAt: 0, expiresAt: 1 });
      return { ...outcome, at: 0 };
    },
    now: () => 0,
  };
}

describe('runApproval', () => {
  it('refuses with a clear error, running nothing, when neither the approver nor the fallback can be reached', async () => {
    const run = await runApproval(deps([], { decision: 'approved', channel: 'console' }), call(), decision('console', 'webhook'), target);
    expect(run.step.ok).toBe(false);
    expect(!run.step.ok && run.step.error).toMatchObject({ kind: 'approval_required', data: { rule: 'deploys', approver: 'console', fallback: 'webhook' } });
    expect(run.approval).toBeUndefined();
  });

  it('forwards exactly the call as it came once a held channel approves, and records who, which channel and the id', async () => {
    const d = deps(['console'], { decision: 'approved', channel: 'console', by: 'carol' });
    const run = await runApproval(d, call(), decision('console'), target);
    expect(run.step).toEqual(ok({ kind: 'forward', params: { name: 'up__deploy', arguments: { env: 'prod' } } }));
    expect(run.approval).toEqual({ channel: 'console', decision: 'approved', by: 'carol', id: 'appr-1' });
    expect(run.waitedMs).toBeGreaterThanOrEqual(0);
    expect(d.asked[0]).toMatchObject({ channel: 'console', name: 'up__deploy', upstreamName: 'deploy', ruleId: 'deploys', principal: { subject: 'alice', authContext: 'k:alice' } });
  });

  it('answers a denial with a declined tool result and nothing forwarded', async () => {
    const run = await runApproval(deps(['webhook'], { decision: 'denied', channel: 'webhook', by: 'pager', reason: 'not now' }), call(), decision('webhook'), target);
    expect(run.step.ok && run.step.value.kind).toBe('reply');
    expect(run.step.ok && run.step.value.kind === 'reply' && run.step.value.result).toMatchObject({ isError: true });
    expect(run.approval).toMatchObject({ channel: 'webhook', decision: 'denied', by: 'pager' });
  });

  it('takes the fallback when the calling user cannot be asked (no elicitation declared)', async () => {
    const d = deps(['console'], { decision: 'approved', channel: 'console', by: 'carol' });
    const run = await runApproval(d, call(), decision('user', 'console'), target);
    expect(run.step.ok).toBe(true);
    expect(d.asked[0]!.channel).toBe('console');
  });

  it('asks a 2026-07-28 caller that declared elicitation in-band: input_required, recorded as requested', async () => {
    const d = deps([], { decision: 'approved', channel: 'user' });
    const run = await runApproval(d, call({ clientCapabilities: { elicitation: {} } }), decision('user'), target);
    expect(run.step.ok && run.step.value.kind === 'reply' && run.step.value.result.resultType).toBe('input_required');
    expect(run.approval).toMatchObject({ channel: 'user', decision: 'requested' });
    expect(d.asked).toHaveLength(0);
  });
});

// The target sequence in-process, without sockets: what each stage decides, in which order,
// and the CallRecord assembled from it. An in-memory Upstream stands in for the wire (the
// end-to-end suites in test/e2e run the same sequence against real MCP servers).
import { describe, expect, it } from 'vitest';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import type { Call, Reply } from '../protocol/call.ts';
import { HEADER_MISMATCH, type GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';
import type { Decision } from '../policy/decision.ts';
import type { Enforcer, Gate } from '../policy/enforcer.ts';
import { createMemoryLogger } from '../telemetry/logger.ts';
import type { Upstream, UpstreamRequest } from '../upstream/upstream.ts';
import { createTargetSequence, type Resolved } from './target-sequence.ts';
import { createResultShaper } from '../result-shaping/result-shaper.ts';
import { normalizeShapingConfig } from '../result-shaping/shaping-config.ts';
import { SchemaValidator } from '../validation/schema-validator.ts';

function memoryUpstream(answers: Reply[]): Upstream & { sent: UpstreamRequest[] } {
  const sent: UpstreamRequest[] = [];
  return {
    name: 'up',
    sent,
    config: { limits: { maxAnswerBytes: 1024, maxJsonDepth: 64 } } as Upstream['config'],
    start: async () => undefined,
    request: async (req) => {
      sent.push(req);
      return answers.shift() ?? ok({ content: [] });
    },
    status: () => ({ name: 'up', transport: 'http', state: 'up', era: 'modern', since: 0 }),
    identity: () => undefined,
    onEvent: () => undefined,
    close: async () => undefined,
  };
}

function enforcer(gate: Gate, visible = true): Enforcer {
  return { listFilter: () => undefined, visible: () => visible, gate: () => gate };
}

const allow = (ruleId = 'r1'): Gate => ok({ effect: 'allow', ruleId, reason: 'allowed' } as Decision);

const call: Call = {
  era: 'modern',
  id: 1,
  method: 'tools/call',
  params: { name: 'up__echo', arguments: { message: 'hi' } },
  protocolVersion: '2026-07-28',
  clientCapabilities: {},
  principal: ANONYMOUS_PRINCIPAL,
  authContext: 'anonymous',
  headers: () => undefined,
  signal: new AbortController().signal,
  notify: () => undefined,
};

const UNKNOWN: GatewayError = { kind: 'invalid_params', message: 'Unknown tool: up__echo' };

function resolved(upstream: Upstream, extra: Partial<Resolved> = {}): Resolved {
  return {
    target: { kind: 'tool', upstream: 'up', name: 'up__echo', upstreamName: 'echo', item: { name: 'echo' }, arguments: { message: 'hi' } },
    upstream,
    judge: 'call',
    listed: { list: 'tools', item: { name: 'echo' }, origin: { upstream: 'up', original: 'echo' } },
    unknown: UNKNOWN,
    upstreamParams: (p: JsonObject) => ({ ...p, name: 'echo' }),
    ...extra,
  };
}

const run = (e: Enforcer) => createTargetSequence({ enforcer: e, logger: createMemoryLogger().logger });

describe('the target sequence', () => {
  it('sends an allowed call in the upstream\'s own names and records target, decision and upstream time', async () => {
    const up = memoryUpstream([ok({ content: [{ type: 'text', text: 'hi' }] })]);
    const { reply, record } = await run(enforcer(allow()))(call, async () => ok(resolved(up)));
    expect(reply).toEqual(ok({ content: [{ type: 'text', text: 'hi' }] }));
    expect(up.sent[0]!.params).toMatchObject({ name: 'echo', arguments: { message: 'hi' } });
    expect(record).toMatchObject({ target: { upstream: 'up', name: 'up__echo', upstreamName: 'echo' }, decision: { effect: 'allow', ruleId: 'r1' } });
    expect(record.upstreamMs).toBeGreaterThanOrEqual(0);
  });

  it('answers a denied call exactly as an unknown name, sends nothing, and records the rule', async () => {
    const up = memoryUpstream([]);
    const { reply, record } = await run(enforcer(ok({ effect: 'deny', ruleId: 'no-echo', reason: 'denied' } as Decision)))(call, async () => ok(resolved(up)));
    expect(reply).toEqual(err(UNKNOWN));
    expect(up.sent).toHaveLength(0);
    expect(record.decision).toEqual({ effect: 'deny', ruleId: 'no-echo', reason: 'denied' });
  });

  it('records a quarantine and a rate limit under their own names', async () => {
    const up = memoryUpstream([]);
    const quarantined = await run(enforcer(ok({ effect: 'deny', ruleId: 'quarantine', reason: 'pin' } as Decision)))(call, async () => ok(resolved(up)));
    expect(quarantined.record.decision).toMatchObject({ effect: 'quarantined', ruleId: 'quarantine' });
    const limited = await run(enforcer(err({ kind: 'rate_limited', ruleId: 'budget', retryAfterMs: 1000 })))(call, async () => ok(resolved(up)));
    expect(limited.reply).toEqual(err({ kind: 'rate_limited', ruleId: 'budget', retryAfterMs: 1000 }));
    expect(limited.record.decision).toMatchObject({ effect: 'rate_limited', ruleId: 'budget' });
    expect(up.sent).toHaveLength(0);
  });

  it('puts a precheck error first, but tells a caller who may not see the target only that it is unknown', async () => {
    const up = memoryUpstream([]);
    const mismatch: GatewayError = { kind: 'header_mismatch', message: 'Mcp-Param-Region' };
    const seen = await run(enforcer(ok({ effect: 'deny', ruleId: 'x', reason: '' } as Decision), true))(call, async () => ok(resolved(up, { precheck: mismatch })));
    expect(seen.reply).toEqual(err(mismatch));
    const hidden = await run(enforcer(allow(), false))(call, async () => ok(resolved(up, { precheck: mismatch })));
    expect(hidden.reply).toEqual(err(UNKNOWN));
    expect(hidden.record.decision).toMatchObject({ effect: 'hidden' });
    expect(up.sent).toHaveLength(0);
  });

  it('runs checks after the decision: a hidden target never answers "invalid"; a visible one does and is not sent', async () => {
    const up = memoryUpstream([]);
    const invalid: GatewayError = { kind: 'invalid_params', message: 'Invalid arguments' };
    const denied = await run(enforcer(ok({ effect: 'deny', ruleId: 'd', reason: '' } as Decision)))(call, async () => ok(resolved(up, { check: () => invalid })));
    expect(denied.reply).toEqual(err(UNKNOWN));
    const allowed = await run(enforcer(allow()))(call, async () => ok(resolved(up, { check: () => invalid })));
    expect(allowed.reply).toEqual(err(invalid));
    expect(up.sent).toHaveLength(0);
  });

  it('judges completion-like targets by visibility alone', async () => {
    const up = memoryUpstream([ok({ completion: { values: [] } })]);
    const hidden = await run(enforcer(err({ kind: 'internal', message: 'policy must not be asked' }), false))(call, async () => ok(resolved(up, { judge: 'visibility' })));
    expect(hidden.reply).toEqual(err(UNKNOWN));
    const shown = await run(enforcer(err({ kind: 'internal', message: 'policy must not be asked' }), true))(call, async () => ok(resolved(up, { judge: 'visibility' })));
    expect(shown.reply.ok).toBe(true);
  });

  it('after an upstream header refusal, resolves again and sends once more; a second refusal is not the client\'s -32020', async () => {
    const refusal: Reply = err({ kind: 'upstream_error', upstream: 'up', error: { code: HEADER_MISMATCH, message: 'bad header' } });
    const up = memoryUpstream([refusal, ok({ content: [] })]);
    let refreshed = 0;
    const again = await run(enforcer(allow()))(call, async () => ok(resolved(up, { refresh: async () => (refreshed++, resolved(up)) })));
    expect(again.reply).toEqual(ok({ content: [] }));
    expect(refreshed).toBe(1);
    const stubborn = memoryUpstream([refusal, refusal]);
    const twice = await run(enforcer(allow()))(call, async () => ok(resolved(stubborn, { refresh: async () => resolved(stubborn) })));
    expect(twice.reply.ok).toBe(false);
    expect(!twice.reply.ok && twice.reply.error.kind === 'upstream_error' && twice.reply.error.error.code).toBe(-32603);
    expect(stubborn.sent).toHaveLength(2);
  });

  it('passes a resolution error through with an empty record', async () => {
    const up = memoryUpstream([]);
    const { reply, record } = await run(enforcer(allow()))(call, async () => err(UNKNOWN));
    expect(reply).toEqual(err(UNKNOWN));
    expect(record).toEqual({});
    expect(up.sent).toHaveLength(0);
  });

  it('shapes a tool result last, after the rewrite has seen it whole, and records what it did', async () => {
    const shaper = createResultShaper({ config: normalizeShapingConfig({ maxResultBytes: 10 }).config, redaction: { keys: [], paths: [], patterns: [] }, validator: new SchemaValidator() });
    const seq = createTargetSequence({ enforcer: enforcer(allow()), logger: createMemoryLogger().logger, shaper });
    const up = memoryUpstream([ok({ content: [{ type: 'text', text: 'x'.repeat(40) }] })]);
    let rewritten = '';
    const rewrite = (r: Reply): Reply => {
      rewritten = r.ok ? ((r.value.content as JsonObject[])[0]!.text as string) : '';
      return r;
    };
    const { reply, record } = await seq(call, async () => ok(resolved(up, { rewrite })));
    expect(rewritten).toBe('x'.repeat(40));
    expect(reply.ok && ((reply.value.content as JsonObject[])[0]!.text as string).startsWith(`${'x'.repeat(10)}\n\n[Gatehouse cut`)).toBe(true);
    expect(record.shaping).toMatchObject({ bytes: 40, sentBytes: 10, cutBytes: 30 });
    // Prompts and resources are not tool results: left as they came.
    const prompt = memoryUpstream([ok({ messages: [], content: [{ type: 'text', text: 'y'.repeat(40) }] })]);
    const asPrompt = await seq({ ...call, method: 'prompts/get' }, async () => ok(resolved(prompt, { target: { kind: 'prompt', upstream: 'up', name: 'up__p', upstreamName: 'p' } })));
    expect(asPrompt.record.shaping).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { Call } from '../protocol/call.ts';
import { testCall } from '../../test/fixtures/calls.ts';
import { err, ok } from '../protocol/result.ts';
import type { JsonValue } from '../protocol/message.ts';
import { createAuditBodies } from './audit-body.ts';
import { canonicalJson } from './canonical-json.ts';
import { digestJson } from './digest.ts';
import { buildRequestRecord } from './request-record.ts';

const bodies = createAuditBodies({ record: { arguments: 'digest', results: 'digest' }, redact: { keys: [], paths: [], patterns: [] }, rules: [] });

function call(overrides: Partial<Call> = {}): Call {
  return testCall({
    id: 7,
    params: { name: 'up__query', arguments: { q: 'x' } },
    principal: { subject: 'ops-bot', groups: ['ops'], scopes: [], claims: {}, method: 'api_key', authContext: 'k1' },
    authContext: 'k1',
    ...overrides,
  });
}

const timing = { requestId: 'r1', time: '2026-01-01T00:00:00.000Z', outcome: 'ok' as const, durationMs: 1.5 };

describe('request audit record', () => {
  it('writes only the fields that apply, in canonical order, with nothing for absent ones', () => {
    const rec = buildRequestRecord(call({ method: 'ping', params: {} }), {}, ok({}), timing, bodies);
    expect(canonicalJson(rec)).toBe(
      '{"durationMs":1.5,"era":"modern","method":"ping","outcome":"ok","principal":{"groups":["ops"],"method":"api_key","subject":"ops-bot"},' +
        '"requestId":"r1","rpcId":7,"time":"2026-01-01T00:00:00.000Z","type":"request"}',
    );
    // Built in canonical key order, so canonicalJson's JSON.stringify fast path gives the text.
    expect(JSON.stringify(rec)).toBe(canonicalJson(rec));
  });

  it('records target, decision, approval, client, params, bodies and timings of a full call', () => {
    const rec = buildRequestRecord(
      call({ clientInfo: { name: 'cli', version: '1', extra: true } }),
      {
        paramValues: { 'Mcp-Param-Region': 'eu' },
        target: { upstream: 'up', name: 'up__query', upstreamName: 'query' },
        decision: { effect: 'approve', ruleId: 'r', reason: '' },
        approval: { channel: 'console', decision: 'approved', by: 'alice', id: 'a1' },
        upstreamMs: 1.23456,
      },
      ok({ content: [] }),
      { ...timing, traceId: 'abc', errorCode: undefined, responseBytes: 99 },
      bodies,
    );
    expect(JSON.parse(canonicalJson(rec))).toEqual({
      approval: { approver: 'alice', channel: 'console', decision: 'approved', id: 'a1' },
      arguments: { digest: digestJson({ q: 'x' }) },
      client: { name: 'cli', version: '1' },
      decision: { effect: 'approve', ruleId: 'r' },
      durationMs: 1.5,
      era: 'modern',
      method: 'tools/call',
      name: 'up__query',
      outcome: 'ok',
      params: { 'Mcp-Param-Region': 'eu' },
      principal: { groups: ['ops'], method: 'api_key', subject: 'ops-bot' },
      requestId: 'r1',
      responseBytes: 99,
      result: { digest: digestJson({ content: [] }) },
      rpcId: 7,
      time: '2026-01-01T00:00:00.000Z',
      traceId: 'abc',
      type: 'request',
      upstream: 'up',
      upstreamMs: 1.235,
      upstreamName: 'query',
    });
  });

  it('keeps an empty client object when clientInfo names neither name nor version', () => {
    const rec = buildRequestRecord(call({ clientInfo: {} }), {}, ok({}), timing, bodies);
    expect(canonicalJson(rec)).toContain('"client":{}');
  });

  it('says why a result that was executed upstream but refused as too deep is not in the record', () => {
    const rec = buildRequestRecord(call(), { target: { upstream: 'up', name: 'up__query', upstreamName: 'query' } }, err({ kind: 'upstream_answer_too_deep', upstream: 'up', limit: 64 }), { ...timing, outcome: 'error', errorCode: -31001 }, bodies);
    expect(rec.result).toEqual({ unrecorded: 'nested deeper than 64 levels (limits.maxJsonDepth); not forwarded' });
    expect(rec.arguments).toEqual({ digest: digestJson({ q: 'x' }) });
  });

  it.each(['digest', 'redacted', 'full'] as const)('still writes a canonical record when a body is too deep to record (%s mode)', (mode) => {
    const deep = JSON.parse('['.repeat(600) + ']'.repeat(600)) as JsonValue;
    const inMode = createAuditBodies({ record: { arguments: mode, results: mode }, redact: { keys: [], paths: [], patterns: [] }, rules: [] });
    const rec = buildRequestRecord(call({ params: { name: 'up__query', arguments: { deep } } }), {}, ok({ structuredContent: { deep } }), timing, inMode);
    expect(rec.arguments).toEqual({ unrecorded: 'nested deeper than 508 levels' });
    expect(rec.result).toEqual({ unrecorded: 'nested deeper than 508 levels' });
    expect(() => canonicalJson(rec)).not.toThrow();
  });
});

// What an HTTP exchange with an upstream came to, as the gateway's result: a JSON-RPC result,
// or the GatewayError that names the upstream and keeps its HTTP status. Pure. The outcomes
// that change the upstream's own state (an answer over the size limit, a lost connection) are
// http-upstream.ts's to handle; this answers `undefined` for them.
import { ANSWER_BUDGET_RETRY_MS } from '../../limits/answer-budget.ts';
import type { GatewayError } from '../../protocol/errors.ts';
import type { JsonObject } from '../../protocol/message.ts';
import { isErrorResponse } from '../../protocol/message.ts';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { ExchangeOutcome } from './http-exchange.ts';
import { reasonOf } from './failure-text.ts';
import { RELAYED_RESULT, RELAYED_TOOL_ERROR } from '../../protocol/result-relay.ts';

export interface AnswerContext {
  upstream: string;
  timeoutMs: number;
  /** The request went in a 2025-11-25 session: a 404 then means the session was forgotten. */
  inSession: boolean;
  /** limits.maxJsonDepth, named when a relayed answer nests deeper. */
  maxJsonDepth: number;
}

export function answerMeaning(outcome: ExchangeOutcome, c: AnswerContext): Result<JsonObject, GatewayError> | undefined {
  const upstream = c.upstream;
  switch (outcome.kind) {
    case 'response':
      return isErrorResponse(outcome.message) ? err({ kind: 'upstream_error', upstream, error: outcome.message.error }) : ok(outcome.message.result);
    case 'accepted':
      return err({ kind: 'upstream_unavailable', upstream, reason: 'answered a request with 202 and no response' });
    case 'http_error':
      if (outcome.status === 404 && c.inSession) return err({ kind: 'session_not_found' });
      if (outcome.message && isErrorResponse(outcome.message)) return err({ kind: 'upstream_error', upstream, error: outcome.message.error, status: outcome.status });
      return err({ kind: 'upstream_unavailable', upstream, reason: `HTTP ${outcome.status}` });
    case 'timeout':
      return err({ kind: 'upstream_timeout', upstream, timeoutMs: c.timeoutMs });
    case 'aborted':
      return err({ kind: 'upstream_unavailable', upstream, reason: reasonOf(outcome) });
    case 'relayed': // The client has the result's bytes (relayed-body.ts); only isError is read of this value.
      return ok(outcome.isError ? RELAYED_TOOL_ERROR : RELAYED_RESULT);
    case 'invalid_answer':
    case 'relay_broken': {
      const when = outcome.kind === 'relay_broken' ? 'after the gateway began relaying it' : 'before anything was relayed';
      if (outcome.tooDeep) return err({ kind: 'upstream_answer_too_deep', upstream, limit: c.maxJsonDepth });
      return err({ kind: 'upstream_unavailable', upstream, reason: `its answer was refused ${when}: ${outcome.reason}` });
    }
    case 'over_budget': // The answers in flight hold the whole memory budget: not this upstream's fault.
      return err({ kind: 'over_capacity', limit: 'maxInflightAnswerBytes', message: `Upstream "${upstream}": ${reasonOf(outcome)}; try again shortly`, retryAfterMs: ANSWER_BUDGET_RETRY_MS });
    default:
      return undefined;
  }
}

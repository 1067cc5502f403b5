// How a call to a stdio upstream can fail short of an answer, and what each failure means as
// the gateway's error (pure). The stdio counterpart of upstream/http/answer-meaning.ts: the
// supervisor (stdio-upstream.ts) settles a waiting call with one of these; the client hears
// the meaning, never the command line or the exit code (those are for the log and /readyz).
import { ANSWER_BUDGET_RETRY_MS } from '../../limits/answer-budget.ts';
import type { GatewayError } from '../../protocol/errors.ts';

export class TimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** The answer's line was longer than limits.maxUpstreamAnswerBytes, and was not kept. */
export class AnswerTooLarge extends Error {
  constructor(limit: number) {
    super(`the answer exceeds the ${limit}-byte limit (limits.maxUpstreamAnswerBytes)`);
  }
}

/** The answers in flight, HTTP and stdio alike, held all of limits.maxInflightAnswerBytes
 * while this one was read: not this upstream's fault, and worth a retry shortly. */
export class AnswerOverBudget extends Error {
  constructor(limit: number) {
    super(`the answers in flight hold all of the ${limit}-byte memory budget (limits.maxInflightAnswerBytes)`);
  }
}

/** A call's process exited or never started; the message (command, exit code) is not for clients. */
export class ProcessGone extends Error {}

export function callFailure(e: Error, upstream: string): GatewayError {
  if (e instanceof TimeoutError) return { kind: 'upstream_timeout', upstream, timeoutMs: e.ms };
  if (e instanceof AnswerOverBudget) return { kind: 'over_capacity', limit: 'maxInflightAnswerBytes', message: `Upstream "${upstream}": ${e.message}; try again shortly`, retryAfterMs: ANSWER_BUDGET_RETRY_MS };
  return { kind: 'upstream_unavailable', upstream, reason: e instanceof ProcessGone ? 'the process ended' : e.message };
}

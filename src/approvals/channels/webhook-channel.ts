// The webhook approver: POST a signed JSON approval request to the configured URL and read
// what comes back. The answer is one of
//   - a decision in the response body (200 {"decision":"approve"|"deny","by":"..."}),
//   - an acknowledgement (any other 2xx: the decision will come on the callback URL),
//   - a failure, after `retries` further attempts with backoff for the failures worth
//     retrying (network error, timeout, 408, 429, 5xx); redirects are never followed, so the
//     signed body only ever goes to the configured URL.
// Every attempt carries the same `id` (the receiver's idempotency key) and a fresh signature.
// Applying the decision, timeouts of the whole approval and auditing are the service's.
import type { JsonObject } from '../../protocol/message.ts';
import { DEFAULT_REDACT_KEYS } from '../../audit/audit-config-schema.ts';
import { compileRedaction, redact } from '../../audit/redact.ts';
import { BUILTIN_PATTERN_NAMES } from '../../audit/redact-patterns.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { ApprovalRequest } from '../approval.ts';
import type { WebhookConfig } from '../approvals-config.ts';
import { parseWireDecision, type WireDecision } from '../wire-decision.ts';
import { SIGNATURE_HEADER, signBody } from '../webhook-signature.ts';

export const WEBHOOK_EVENT = 'approval.requested';
/** A decision in a response is a few hundred bytes; more is not an answer. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 5_000;

export type WebhookResult =
  | { kind: 'decided'; decision: WireDecision }
  | { kind: 'accepted' }
  | { kind: 'failed'; reason: string };

export interface WebhookChannel {
  deliver(request: ApprovalRequest, signal: AbortSignal): Promise<WebhookResult>;
}

export interface WebhookChannelDeps {
  /** Base URL of the callback, without a trailing slash. */
  publicUrl: string;
  logger: Logger;
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const REDACTION = (() => {
  const compiled = compileRedaction({
    keys: [...DEFAULT_REDACT_KEYS],
    paths: [],
    patterns: BUILTIN_PATTERN_NAMES.map((name) => ({ kind: 'builtin' as const, name })),
  });
  if (!compiled.ok) throw new Error('webhook-channel: default redaction does not compile');
  return compiled.value;
})();

/** The JSON body POSTed to the webhook (docs/approvals.md, "Webhook protocol"). */
export function webhookBody(request: ApprovalRequest, config: Pick<WebhookConfig, 'redact'>, publicUrl: string): JsonObject {
  return {
    type: WEBHOOK_EVENT,
    id: request.id,
    principal: { subject: request.principal.subject, groups: [...request.principal.groups] },
    call: {
      method: request.method,
      upstream: request.upstream,
      name: request.name,
      upstreamName: request.upstreamName,
      arguments: config.redact ? (redact(request.arguments, REDACTION) as JsonObject) : request.arguments,
      argumentsRedacted: config.redact,
      argumentsDigest: request.argumentsDigest,
    },
    ruleId: request.ruleId,
    createdAt: new Date(request.createdAt).toISOString(),
    expiresAt: new Date(request.expiresAt).toISOString(),
    callbackUrl: `${publicUrl}/approvals/${request.id}`,
  };
}

export function createWebhookChannel(config: WebhookConfig, deps: WebhookChannelDeps): WebhookChannel {
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? abortableSleep;
  const log = deps.logger.child({ component: 'approvals.webhook' });

  const attempt = async (request: ApprovalRequest, body: string, signal: AbortSignal): Promise<WebhookResult & { retry?: boolean }> => {
    const remaining = request.expiresAt - now();
    if (remaining <= 0) return { kind: 'failed', reason: 'the approval expired before the webhook answered' };
    const timeout = AbortSignal.timeout(Math.min(config.timeoutMs, remaining));
    let response: Response;
    try {
      response = await doFetch(config.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.any([signal, timeout]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'gatehouse-approvals',
          [SIGNATURE_HEADER]: signBody(config.secret, body, now() / 1000),
        },
        body,
      });
    } catch (e) {
      if (signal.aborted) return { kind: 'failed', reason: 'cancelled' };
      // fetch reports "fetch failed"; the cause says why (ECONNREFUSED, ENOTFOUND, a TLS error).
      const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
      const why = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : (e as Error).message;
      const reason = timeout.aborted ? `no answer within ${config.timeoutMs} ms` : `delivery error: ${why}`;
      return { kind: 'failed', reason, retry: true };
    }
    const text = await readLimited(response).catch(() => undefined);
    const status = response.status;
    if (status >= 200 && status < 300) {
      if (text === undefined) return { kind: 'failed', reason: 'the response body was too large or unreadable', retry: true };
      return interpret(text);
    }
    const retry = status === 408 || status === 429 || status >= 500;
    return { kind: 'failed', reason: `the webhook answered HTTP ${status}`, retry };
  };

  return {
    async deliver(request, signal) {
      const body = JSON.stringify(webhookBody(request, config, deps.publicUrl));
      let last: WebhookResult = { kind: 'failed', reason: 'not sent' };
      for (let n = 0; n <= config.retries; n += 1) {
        if (n > 0) {
          const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (n - 1));
          if (now() + delay >= request.expiresAt) break;
          await sleep(delay, signal).catch(() => undefined);
        }
        if (signal.aborted) return { kind: 'failed', reason: 'cancelled' };
        const result = await attempt(request, body, signal);
        const { retry, ...outcome } = result;
        last = outcome;
        if (result.kind !== 'failed' || retry !== true) break;
        log.warn('webhook delivery failed', { approvalId: request.id, attempt: n + 1, reason: result.reason });
      }
      if (last.kind === 'failed') log.error('webhook delivery gave up', { approvalId: request.id, reason: last.reason });
      return last;
    },
  };
}

function interpret(text: string): WebhookResult {
  if (text.trim() === '') return { kind: 'accepted' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'failed', reason: 'the webhook answered with a body that is not JSON' };
  }
  // A 2xx without a decision is an acknowledgement: the decision comes on the callback.
  if (body === null || typeof body !== 'object' || !('decision' in body)) return { kind: 'accepted' };
  const decision = parseWireDecision(body);
  return decision.ok ? { kind: 'decided', decision: decision.value } : { kind: 'failed', reason: `the webhook's decision is invalid: ${decision.error}` };
}

async function readLimited(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new Error('response too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(done, ms);
    function done(): void {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort(): void {
      clearTimeout(timer);
      reject(new Error('aborted'));
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

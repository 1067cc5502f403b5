// How a call that needs the caller's consent is answered in-band, per era, when the client
// declared URL-mode elicitation (MCP 2025-11-25 and 2026-07-28, client/elicitation, URL mode:
// for third-party OAuth, the URL opens outside the client, and an `accept` only means the user
// agreed to open it):
// - 2026-07-28: an `input_required` result whose one input request is `elicitation/create`
//   with `mode: url`; the client retries the same call with `inputResponses`, which the gateway
//   takes out again before the call goes upstream. The retry goes through once the user has
//   consented; until then it is answered the same way again.
// - 2025-11-25: the URL-elicitation-required error -32042 with the elicitation in
//   `data.elicitations` (protocol/errors.ts), which the client shows and then retries.
// Clients that declared neither get the consent link in an error (-31004, data.url).
import { createHash } from 'node:crypto';
import type { Call, Reply } from '../protocol/call.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';

/** The inputRequests key of the gateway's consent question (not the upstream's). */
export const CONSENT_INPUT_KEY = 'gatehouse_user_consent';

export function consentElicitationId(upstream: string, authContext: string): string {
  return `gatehouse-consent-${createHash('sha256').update(`${upstream}\u0000${authContext}`).digest('base64url').slice(0, 22)}`;
}

function declaresUrlElicitation(caps: JsonObject): boolean {
  const e = caps.elicitation;
  return isJsonObject(e) && isJsonObject(e.url);
}

/** `reply` as the client can act on it, when it is a consent_required error. */
export function answerConsent(call: Call, reply: Reply): Reply {
  if (reply.ok || reply.error.kind !== 'consent_required') return reply;
  const e = reply.error;
  if (!declaresUrlElicitation(call.clientCapabilities)) return reply;
  if (call.era === 'legacy') return err({ ...e, elicit: true });
  return ok({
    resultType: 'input_required',
    inputRequests: {
      [CONSENT_INPUT_KEY]: {
        method: 'elicitation/create',
        params: { mode: 'url', message: `Connect your account at "${e.upstream}" to continue: open the link, sign in there, then come back.`, url: e.url },
      },
    },
  });
}

/** The call's params without the gateway's own consent answer (the upstream never asked it). */
export function stripConsentAnswer(params: JsonObject): JsonObject {
  const responses = params.inputResponses;
  if (!isJsonObject(responses) || !(CONSENT_INPUT_KEY in responses)) return params;
  const { [CONSENT_INPUT_KEY]: _ours, ...theirs } = responses;
  const { inputResponses: _all, ...rest } = params;
  return Object.keys(theirs).length > 0 ? { ...rest, inputResponses: theirs } : rest;
}

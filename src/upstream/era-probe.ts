// The era probe every upstream transport runs (MCP 2026-07-28, basic/versioning (backwards
// compatibility)): `server/discover` first; modern only when the answer is a discover result
// that lists a 2026-07-28 version Gatehouse speaks; a recognised modern error means "modern,
// but it refused us" (no fallback); anything else, an empty `{}` result included, means
// `initialize`. The transport says how one request travels (ProbeSend) and what it does with
// the outcome (session ids, notification streams, restarts); the decisions are made here.
import type { JsonObject, JsonRpcResponse } from '../protocol/message.ts';
import { isErrorResponse, isJsonObject } from '../protocol/message.ts';
import { SUPPORTED_MODERN_VERSIONS } from '../protocol/versions.ts';
import { discoverParams, identityFromDiscover, identityFromInitialize, initializeParams, isModernError } from './era-shape.ts';
import type { UpstreamIdentity } from './upstream.ts';

/** What one probe request came back with. `failure` stops the probe: the transport could not
 * reach the upstream at all, and reports that in its own words (F). */
export type ProbeAnswer<F> =
  | { kind: 'response'; message: JsonRpcResponse }
  /** Answered, but with no JSON-RPC response: a bare HTTP status, 202, a stdio timeout. */
  | { kind: 'no_response'; why: string }
  | { kind: 'failure'; failure: F };

export type ProbeSend<F> = (method: 'server/discover' | 'initialize', params: JsonObject) => Promise<ProbeAnswer<F>>;

export type ProbeOutcome<F> =
  | { kind: 'modern'; identity: UpstreamIdentity }
  /** `result`: the InitializeResult, for the negotiated version. */
  | { kind: 'legacy'; identity: UpstreamIdentity; result: JsonObject }
  /** It answered, but neither era works: `reason` says why, in words fit for a client. */
  | { kind: 'refused'; reason: string }
  | { kind: 'failure'; failure: F };

/** A DiscoverResult (2026-07-28 schema) that offers a modern version Gatehouse speaks. */
export function offersModernVersion(result: JsonObject): boolean {
  const versions = result.supportedVersions;
  return (
    Array.isArray(versions) &&
    versions.some((v) => typeof v === 'string' && SUPPORTED_MODERN_VERSIONS.includes(v)) &&
    isJsonObject(result.capabilities)
  );
}

/** `capabilities`: what a 2025-11-25 initialize declares (era-shape.ts initializeParams). */
export async function probeEra<F>(send: ProbeSend<F>, capabilities?: JsonObject): Promise<ProbeOutcome<F>> {
  const disc = await send('server/discover', discoverParams());
  if (disc.kind === 'failure') return disc;
  if (disc.kind === 'response') {
    const m = disc.message;
    if (!isErrorResponse(m) && offersModernVersion(m.result)) return { kind: 'modern', identity: identityFromDiscover(m.result) };
    if (isErrorResponse(m) && isModernError(m.error)) {
      return { kind: 'refused', reason: `upstream speaks the modern era but rejected discovery: ${m.error.message}` };
    }
  }
  const init = await send('initialize', initializeParams(capabilities));
  if (init.kind === 'failure') return init;
  if (init.kind === 'no_response' || isErrorResponse(init.message)) {
    const why = init.kind === 'response' && isErrorResponse(init.message) ? init.message.error.message : init.kind === 'no_response' ? init.why : '';
    return { kind: 'refused', reason: `neither server/discover nor initialize succeeded (${why})` };
  }
  const result = init.message.result;
  return { kind: 'legacy', identity: identityFromInitialize(result), result };
}

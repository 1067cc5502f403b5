// The typed record of one client request, built once by the transport and read by the
// rest of the pipeline (docs/architecture.md §4). Nothing downstream looks at raw HTTP again.
import type { Principal } from '../identity/principal.ts';
import type { Decision } from '../policy/decision.ts';
import type { RequestSpan } from '../telemetry/tracing.ts';
import type { HeaderLookup, HeaderParamValue } from '../headers/param-headers.ts';
import type { Era } from './versions.ts';
import type { GatewayError } from './errors.ts';
import type { JsonObject, JsonRpcNotification, RequestId } from './message.ts';
import type { Result } from './result.ts';

export interface Call {
  era: Era;
  id: RequestId;
  method: string;
  params: JsonObject;
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
  /** Who is calling (identity ring). */
  principal: Principal;
  /** Authorization context that keys `private` caches: the principal's. */
  authContext: string;
  /** Inbound HTTP headers, case-insensitive. Only modern calls have validated Mcp-* headers. */
  headers: HeaderLookup;
  /** Decoded, checked Mcp-Param-* values (modern tools/call), for policy and audit. */
  paramValues?: Record<string, HeaderParamValue>;
  /** What the call resolved to, once known (for policy and audit). */
  target?: { upstream: string; name: string; upstreamName: string };
  /** The policy decision, once made. */
  decision?: Decision;
  /** The gateway's own id of this request (audit, traces, logs). */
  requestId?: string;
  /** The request's span, for upstream child spans and propagation. */
  span?: RequestSpan;
  /** Milliseconds spent waiting on upstreams. */
  upstreamMs?: number;
  /** Milliseconds spent waiting for a person's approval (not gateway overhead). */
  approvalWaitMs?: number;
  /** The approval this call went through, for audit. */
  approval?: { channel: string; decision: string; by?: string; id?: string };
  /** Aborted when the client disconnects (modern) or cancels (legacy). */
  signal: AbortSignal;
  /** Progress / log notifications for this request's stream. */
  notify: (n: JsonRpcNotification) => void;
  /** Legacy clients that declared elicitation: asks them on this call's stream and waits. */
  elicit?: (params: JsonObject, timeoutMs: number) => Promise<Result<JsonObject, GatewayError>>;
}

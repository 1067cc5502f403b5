// The typed record of one client request, built once by the transport and never changed
// (docs/architecture.md §4), and the record of what the MCP ring decided about it. Each stage
// returns what it decided; the ring assembles a CallRecord from those returns, and audit,
// metrics and spans read that record, never fields written on the Call along the way.
import type { Cancellation } from './cancellation.ts';
import type { Principal } from '../identity/principal.ts';
import type { RequestSpan } from '../telemetry/tracing.ts';
import type { HeaderLookup, HeaderParamValue } from '../headers/param-headers.ts';
import type { Era } from './versions.ts';
import type { GatewayError } from './errors.ts';
import type { JsonObject, JsonRpcNotification, RequestId } from './message.ts';
import type { Result } from './result.ts';
import type { ShapingRecord } from '../result-shaping/shape-result.ts';
import type { ClientAsk } from './client-ask.ts';
import type { ClientChannel } from './client-channel.ts';
import type { ResultRelay } from './result-relay.ts';

export interface Call {
  readonly era: Era;
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject;
  readonly protocolVersion: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo?: JsonObject;
  /** The 2025-11-25 session the call came in (legacy only), for what lives per session. */
  readonly sessionId?: string;
  /** Who is calling (identity ring). */
  readonly principal: Principal;
  /** Authorization context that keys `private` caches: the principal's. */
  readonly authContext: string;
  /** Inbound HTTP headers, case-insensitive. Only modern calls have validated Mcp-* headers. */
  readonly headers: HeaderLookup;
  /** The gateway's own id of this request (audit, traces, logs). */
  readonly requestId?: string;
  /** The request's span, for upstream child spans and propagation. */
  readonly span?: RequestSpan;
  /** Aborted when the client disconnects (modern) or cancels (legacy). A call the transport
   * dispatched makes it from `cancellation` on first read: code on the path of every call
   * listens through `cancellation` instead (protocol/cancellation.ts). */
  readonly signal: AbortSignal;
  /** The same cancellation, without making an AbortSignal: where a transport dispatched the call. */
  readonly cancellation?: Cancellation;
  /** Makes a 2025-11-25 call's answer a resumable stream now (the upstream made its own one). */
  readonly primeStream?: (retryMs: number | undefined) => void;
  /** Progress / log notifications for this request's stream. */
  readonly notify: (n: JsonRpcNotification) => void;
  /** Legacy (2025-11-25) sessions: asks the calling client on this call's stream and waits,
   * bounded by `timeoutMs` and by the call's signal. Refuses at once a method whose
   * capability the client did not declare. */
  readonly ask?: ClientAsk;
  /** Legacy sessions: the way to the client outside this call, its GET stream, for an
   * upstream session that serves this client alone (`session: perClient`). */
  readonly channel?: ClientChannel;
  /** The client's reply can take a big tools/call result as the upstream's bytes; used only
   * when nothing in the gateway reads the result (mcp/relay-decision.ts). */
  readonly relay?: ResultRelay;
}

/** What a method answers: a result, or a gateway error that the era's rules map once. */
export type Reply = Result<JsonObject, GatewayError>;

/**
 * How a call was judged, in the record's own words: the policy's effect, or what stopped the
 * call before or beside policy. `hidden` (a name the caller may not see, answered as unknown),
 * `quarantined` (a pinned definition that changed), `rate_limited` (the rule allowed it; its
 * limit did not), `unchecked` (the rate limiter could not be asked: refused, fail closed).
 */
export type RecordedEffect = 'allow' | 'deny' | 'approve' | 'hidden' | 'quarantined' | 'rate_limited' | 'unchecked';

export interface ApprovalRecord {
  channel: string;
  /** requested, approved, denied, expired, cancelled. */
  decision: string;
  by?: string;
  id?: string;
}

export interface CallRecord {
  /** What the exposed name resolved to. */
  readonly target?: { upstream: string; name: string; upstreamName: string };
  readonly decision?: { effect: RecordedEffect; ruleId: string; reason?: string };
  /** Decoded Mcp-Param-* values (tools/call), for audit. */
  readonly paramValues?: Readonly<Record<string, HeaderParamValue>>;
  /** Milliseconds spent waiting on upstreams. */
  readonly upstreamMs?: number;
  /** The kind of credential the upstream was sent (upstream/credential-kind.ts), never its value. */
  readonly credential?: 'user' | 'exchange' | 'service' | 'none';
  readonly approval?: ApprovalRecord;
  /** Milliseconds spent waiting for a person's approval (not gateway overhead). */
  readonly approvalWaitMs?: number;
  /** The gateway tool the call came through (gatehouse__call_tool); `target` is the real tool. */
  readonly via?: string;
  /** The arguments the upstream was sent when they are not the request's own: the real tool's
   * (see `via`), or an overlaid item's with the gateway's values filled in. */
  readonly arguments?: JsonObject;
  /** The arguments an overlay filled in (overlays/overlay-arguments.ts), by name. */
  readonly filledArguments?: Readonly<Record<string, 'fixed' | 'default'>>;
  /** What result shaping did to a tools/call result. */
  readonly shaping?: ShapingRecord;
  /** The result went to the client as the upstream's bytes, unread (protocol/result-relay.ts). */
  readonly relayed?: boolean;
  /** The task this request created or asked about (README, Tasks): the client's id, and the status seen. */
  readonly task?: { id: string; status?: string };
}

/** A method's answer with the record of how it was reached. */
export interface Handled {
  readonly reply: Reply;
  readonly record: CallRecord;
}

export const NO_RECORD: CallRecord = Object.freeze({});

/** The `upstream` of a record whose target the gateway answers itself (its own tools, kept results). */
export const GATEWAY_UPSTREAM = 'gatehouse';

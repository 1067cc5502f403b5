// The one interface the gateway sees for every upstream, whatever its transport (HTTP or
// stdio) and era (2026-07-28 "modern" or 2025-11-25 "legacy"). Era bridging of the request
// itself (_meta shape, sessions, headers) happens behind this interface.
import type { Cancellation } from '../protocol/cancellation.ts';
import type { UpstreamConfig } from '../config/types.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcNotification } from '../protocol/message.ts';
import type { Result } from '../protocol/result.ts';
import type { Era } from '../protocol/versions.ts';
import type { LimitName } from '../telemetry/limit-names.ts';
import type { ResultRelay } from '../protocol/result-relay.ts';
import type { ClientAsk } from '../protocol/client-ask.ts';
import type { ClientChannel } from '../protocol/client-channel.ts';

export interface UpstreamRequest {
  method: string;
  /** Params in the upstream's own names. `_meta` may carry progressToken, trace keys, custom keys. */
  params: JsonObject;
  /** Capabilities the downstream client declared for this request ({} when none). */
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
  /** Mcp-Param-* headers computed from the upstream tool's own schema (HTTP only). */
  paramHeaders?: Readonly<Record<string, string>>;
  /** W3C trace context (traceparent, tracestate) for the upstream HTTP request. */
  traceHeaders?: Readonly<Record<string, string>>;
  /** Who is calling: selects a per-user upstream's credential (user-auth/user-upstream.ts), and
   * nothing else. Lists carry it too, since such an upstream's lists are private per user. */
  principal?: { authContext: string; subject?: string; method?: string };
  /** Aborts the upstream request (client disconnect = cancel). */
  signal?: AbortSignal;
  /** Instead of `signal`: the call's cancellation, whose AbortSignal is made only where an API
   * needs one (an HTTP upstream's exchange listens without). */
  cancellation?: Cancellation;
  /** A 2025-11-25 upstream made its answer a resumable stream (primed it, with this retry). */
  onStreamPrimed?: (retryMs: number | undefined) => void;
  /** Progress / log notifications belonging to this request. */
  onNotification?: (n: JsonRpcNotification) => void;
  /** Asks the client that made this request (2025-11-25 sessions only): how an upstream's
   * sampling, elicitation or roots request during the call reaches it. Absent: nobody can
   * answer, and the upstream gets an error at once. */
  ask?: ClientAsk;
  /** The calling 2025-11-25 client's way outside the call (its GET stream): a per-client
   * upstream (`session: perClient`) keeps one upstream session per channel. */
  channel?: ClientChannel;
  /** The client's reply may take a big result as the upstream's bytes (protocol/result-relay.ts):
   * offered only when nothing in the gateway reads this call's result. An upstream that cannot
   * relay, or one of another era than the client, ignores it. */
  relay?: ResultRelay;
}

export type UpstreamState = 'starting' | 'up' | 'down';

export interface UpstreamStatus {
  name: string;
  transport: 'http' | 'stdio';
  state: UpstreamState;
  era: Era | undefined;
  since: number;
  lastError?: string;
  /** Reached as each calling user (auth type user): why callers may need to consent first, and
   * what those who have not see in lists. */
  userAuth?: { note: string; withoutConsent: 'show' | 'hide' };
}

export interface UpstreamIdentity {
  capabilities: JsonObject;
  serverInfo?: JsonObject;
  instructions?: string;
}

export type UpstreamEvent =
  | { type: 'list_changed'; list: 'tools' | 'prompts' | 'resources' }
  | { type: 'resource_updated'; uri: string }
  /** A task's status, upstream ids: `notifications/tasks/status` (MCP 2025-11-25
   * basic/utilities/tasks, a Task) or `notifications/tasks` (2026-07-28 extension
   * io.modelcontextprotocol/tasks, a DetailedTask). `scope`: the user whose connection it came
   * on (auth type user), whose task ids are the upstream's for that user only. */
  | { type: 'task_status'; task: JsonObject; era: Era; scope?: string }
  | { type: 'state'; state: UpstreamState; error?: string }
  /** An answer or a notification was refused by one of the configured limits (for metrics). */
  | { type: 'limit_hit'; limit: LimitName };

export interface Upstream {
  readonly name: string;
  readonly config: UpstreamConfig;
  /** Connects and probes the era. Never throws: failures show in status(). */
  start(): Promise<void>;
  request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>>;
  status(): UpstreamStatus;
  /** status().era without building the status (read per call); absent: read status(). */
  knownEra?(): Era | undefined;
  identity(): UpstreamIdentity | undefined;
  onEvent(listener: (ev: UpstreamEvent) => void): void;
  /** 2026-07-28 with the tasks extension: the upstream task ids whose status notifications to
   * ask for on the listen stream (of `authContext`'s connection, when reached per user). */
  followTasks?(taskIds: readonly string[], authContext: string): void;
  close(): Promise<void>;
}

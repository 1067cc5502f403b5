// One audit record: per JSON-RPC request, and per notable event (policy reloads, upstream
// up/down, quarantines, approvals). The pipeline fills it; the sink makes it durable and
// chains it. Argument and result bodies are never put here raw: `arguments`/`result` hold
// a digest by default, or a redacted copy where configured.
import type { JsonObject, JsonValue } from '../protocol/message.ts';

export type AuditOutcome = 'ok' | 'tool_error' | 'error' | 'denied' | 'rate_limited' | 'approval_required' | 'cancelled';

export interface RequestAuditRecord {
  type: 'request';
  /** ISO-8601 time the request arrived. */
  time: string;
  requestId: string;
  /** JSON-RPC id as the client sent it. */
  rpcId: string | number | null;
  traceId?: string;
  principal: { subject: string; method: string; groups: readonly string[] };
  client?: { name?: string; version?: string };
  /** Which kind of credential the upstream was sent: user, exchange, service or none. Never its value. */
  credential?: string;
  era: 'modern' | 'legacy';
  method: string;
  /** The virtual server the request came to; absent on the default endpoint. */
  server?: string;
  upstream?: string;
  /** Exposed (prefixed) tool / prompt name, or URI. */
  name?: string;
  /** The upstream's own name or URI. */
  upstreamName?: string;
  params?: Readonly<Record<string, string | number | boolean>>;
  decision?: { effect: string; ruleId: string; reason?: string };
  approval?: { id: string; approver?: string; channel?: string; decision?: string };
  /** `unrecorded`: the body existed but could not be recorded, and why. */
  arguments?: { digest: string } | { redacted: JsonValue } | { full: JsonValue } | { unrecorded: string };
  result?: { digest: string } | { redacted: JsonValue } | { full: JsonValue } | { unrecorded: string };
  /** Arguments an overlay filled in (README, Virtual servers and overlays): `fixed` or
   * `default`, by name. `arguments` is then what the upstream received. */
  filledArguments?: Readonly<Record<string, 'fixed' | 'default'>>;
  /** The gateway tool the call came through (gatehouse__call_tool); `name` is the real tool. */
  via?: string;
  /** What result shaping did: bytes in and out, bytes cut, kept copies, links, redactions. */
  shaping?: { bytes: number; sentBytes: number; cutBytes?: number; kept?: string[]; linked?: number; refused?: true; overBudget?: true; redacted?: number };
  /** The task the request created or asked about: the client's task id and the status seen (README, Tasks). */
  task?: { id: string; status?: string };
  outcome: AuditOutcome;
  errorCode?: number;
  /** The configured limit that refused the request (`maxQueuedCalls`, `bodyTimeout`, ...), by its key. */
  limit?: string;
  /** Milliseconds spent waiting for the upstream, and in total. */
  upstreamMs?: number;
  durationMs: number;
  responseBytes?: number;
  /** The result went to the client as the upstream's bytes, unread (README, Big results relayed as they come). */
  relayed?: true;
}

export interface EventAuditRecord {
  type: 'event';
  time: string;
  event:
    | 'upstream_up'
    | 'upstream_down'
    | 'policy_reloaded'
    | 'policy_rejected'
    | 'config_loaded'
    /** A config reload (SIGHUP, the config file changed): `detail` has file, trigger, result
     * (applied, unchanged, invalid, refused, failed), the upstreams added, removed and
     * changed when applied, and the issues or refused fields when not. */
    | 'config_reload'
    | 'tool_quarantined'
    /** An overlay's item was held back (quarantined, unconfirmed, invalid, missing) or applied again. */
    | 'overlay_changed'
    | 'approval_requested'
    | 'approval_decided'
    /** A notification stream (subscriptions/listen or a legacy GET stream) opened or ended;
     * `detail` names the stream, its principal and, when it ended, why and after how long. */
    | 'stream_opened'
    | 'stream_closed'
    /** A 2025-11-25 upstream's call suspended for a 2026-07-28 client's input was cancelled
     * upstream: `detail` has upstream, method, name, principal, reason (inputTimeout,
     * client_closed, shutdown) and the rounds of questions asked. */
    | 'suspended_call_cancelled'
    /** Per-user upstream authorization (user-auth/): a consent started, completed or failed,
     * a connection removed. `detail` names the upstream and principal, never a token. */
    | 'user_consent_started'
    | 'user_consent_completed'
    | 'user_consent_failed'
    | 'user_disconnected'
    /** A task created through the gateway ended, or was forgotten before its end was seen
     * (README, Tasks): `detail` has task, upstream, upstreamTaskId, tool, principal, status,
     * seen (how the end became known, or `unobserved`), createdBy and ageMs. */
    | 'task_ended'
    /** Written by the sink itself, first thing after a period in which records were dropped
     * (fail open) or refused (fail closed): `detail` has reason, error, since, until,
     * dropped, rejected. The chain stays intact; this says where the trail is incomplete. */
    | 'audit_gap'
    /** Written by the file writer as the first line of each new file: `detail` has the
     * previous file (name, seq range, last hash), the rotated files deleted by
     * rotate.maxFiles (names, seq and time ranges) and the budget (audit-retention.ts). */
    | 'audit_rotated';
  detail: JsonObject;
}

export type AuditRecord = RequestAuditRecord | EventAuditRecord;

/** What the pipeline writes to; the sink behind it decides durability and failure mode. */
export interface AuditTrail {
  /** Resolves when the record is as durable as configured (flushed, or inside the batch window).
   * Rejects only in fail-closed mode when the sink cannot write. */
  record(rec: AuditRecord): Promise<void>;
  /** True while the sink is healthy enough to accept calls (fail-closed gating). */
  healthy(): boolean;
  close(): Promise<void>;
}

/** Counters of the sink, for metrics (audit sink lag, drops) and health endpoints. */
export interface AuditSinkStats {
  /** `failing`: writes fail and are retried; `overloaded`: maxQueue records are waiting. */
  state: 'ok' | 'failing' | 'overloaded' | 'closed' | 'disabled';
  /** Records acknowledged on disk (the sink's own audit_gap events included). */
  written: number;
  /** Records given up in fail-open mode: record() resolved without them. */
  dropped: number;
  /** Records refused in fail-closed mode: record() rejected. */
  rejected: number;
  /** Batches written with one fsync each. */
  flushes: number;
  /** Failed writes, fsyncs and retries. */
  writeErrors: number;
  /** Records waiting or being written. */
  queueDepth: number;
  /** UTF-8 bytes of those records (bounded by audit.maxQueueBytes). */
  queueBytes: number;
  /** Writes that waited for more records because calls were overlapping (commit-timer.ts). */
  commitWaits: number;
  /** Age of the oldest record waiting or being written, 0 when none. */
  lagMs: number;
  /** seq of the last line on disk. */
  lastSeq: number;
  rotations: number;
  /** Records in which a string over audit.maxStringBytes was cut (cap-strings.ts). */
  cut: number;
  /** Rotated files deleted by rotate.maxFiles (each one announced by an audit_rotated event). */
  filesDeleted: number;
  /** Time of the first record of the oldest file still on disk: how far back the kept history
   * reaches. Falling close to now means rotation is outrunning retention (a flood). */
  retainedSince?: string;
  /** write(2) calls and durability barriers (O_DSYNC writes or fdatasyncs) spent on appends:
   * one of each per batch, so `syncs` far below `written` is group commit at work. */
  writes: number;
  syncs: number;
}

/** An AuditTrail that reports its counters. */
export interface MeasuredAuditTrail extends AuditTrail {
  stats(): AuditSinkStats;
}

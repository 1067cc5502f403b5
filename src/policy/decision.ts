// The policy engine's contract with the pipeline: pure decisions over typed records.
// `decide` answers one call; the list filter answers which listed items a principal sees.
// Both come from the same compiled rules, so what a caller sees and what it may call never
// drift apart (issue: identity and policy).
import type { Principal } from '../identity/principal.ts';
import type { HeaderParamValue } from '../headers/param-headers.ts';
import type { JsonObject } from '../protocol/message.ts';

export type Effect = 'allow' | 'deny' | 'approve';

export type ActionKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/** One thing a principal wants to see or do. Names are the exposed (prefixed) ones plus
 * the upstream and the upstream's own name, so rules can match either. */
export interface PolicyAction {
  kind: ActionKind;
  /** 'list' when deciding visibility, 'call' for tools/call, prompts/get, resources/read. */
  operation: 'list' | 'call';
  upstream: string;
  /** Exposed name (tools, prompts) or URI / URI template (resources). */
  name: string;
  /** The upstream's own name or URI. */
  upstreamName: string;
  /** The virtual server the call came through; undefined on the default endpoint. */
  server?: string;
  arguments?: JsonObject;
  /** Decoded Mcp-Param-* values, keyed by header name (e.g. "Mcp-Param-Region"). */
  params?: Readonly<Record<string, HeaderParamValue>>;
}

export interface Decision {
  effect: Effect;
  /** Id of the rule that decided, or "default" when none matched. */
  ruleId: string;
  /** Why, for explain and audit. */
  reason: string;
  /** For approve: which approver channel the rule names. */
  approval?: { approver: string; fallback?: string; timeoutMs?: number };
  /** Rate limits to enforce (key + bucket): the rateLimit of every matching allow/approve
   * rule, in load order; absent when there are none or the call is denied. Enforced by the
   * limiter. */
  rateLimits?: readonly RateLimitRef[];
}

export interface RateLimitRef {
  /** Names the bucket: the id of the rule that declares the limit (one limit per rule). */
  id: string;
  /** Token bucket: capacity and refill per second. */
  capacity: number;
  refillPerSecond: number;
  /** What the bucket is keyed by. */
  per: 'principal' | 'tool' | 'upstream' | 'principal+tool';
}

export interface PolicyEngine {
  decide(principal: Principal, action: PolicyAction): Decision;
}

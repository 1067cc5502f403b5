// Applies the live policy to the pipeline: which listed items a principal sees, and whether
// a call may go on (deny / approve / allow, tool pins, rate limits). Hidden, denied and
// quarantined items get exactly the error an unknown one gets, so policy never leaks
// through error messages (docs/architecture.md §5); only `approve` shows policy to the client.
import type { ListFilter } from '../catalog/catalog.ts';
import type { ItemOrigin } from '../catalog/merge.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import type { HeaderParamValue } from '../headers/param-headers.ts';
import type { Principal } from '../identity/principal.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { CompiledPolicy } from './compile-policy.ts';
import type { ActionKind, Decision, PolicyAction, RateLimitRef } from './decision.ts';
import type { PolicyRuntime } from './policy-runtime.ts';
import { toolDefinitionHash, type PinVersion } from './tool-definition-hash.ts';

const ACTION_KIND: Readonly<Record<ListKind, ActionKind>> = { tools: 'tool', prompts: 'prompt', resources: 'resource', resourceTemplates: 'resourceTemplate' };

export interface CallTarget {
  kind: ActionKind;
  upstream: string;
  /** Exposed name, or URI for resources. */
  name: string;
  upstreamName: string;
  /** A resource read that no list names but a template accounts for: the template's uriTemplate.
   * The read is judged under the template too (a hidden template hides its reads), and rate
   * limits key on it, so distinct uris of one template share one bucket. */
  template?: string;
  item?: JsonObject;
  arguments?: JsonObject;
  params?: Readonly<Record<string, HeaderParamValue>>;
  /** The virtual server the call came through (serverEnforcer fills it in). */
  server?: string;
}

export type Gate = Result<Decision, GatewayError>;

export interface Enforcer {
  /** `server`: the virtual server whose list it is; undefined on the default endpoint. */
  listFilter(principal: Principal, kind: ListKind, server?: string): ListFilter | undefined;
  /** Visibility of one item, for calls that name an item a list would hide (completion). */
  visible(principal: Principal, kind: ListKind, item: JsonObject, origin: ItemOrigin, server?: string): boolean;
  /** Synchronous unless a rate limit must be taken. */
  gate(principal: Principal, target: CallTarget): Gate | Promise<Gate>;
}

const OPEN_GATE: Gate = Object.freeze(ok(Object.freeze({ effect: 'allow', ruleId: 'no-policy', reason: 'no policy configured' } as const)));

/** No policy configured: everything is visible and allowed (a warning is logged at boot). */
export const OPEN_ENFORCER: Enforcer = {
  listFilter: () => undefined,
  visible: () => true,
  // One answer for every call: decisions are read, never changed, once made.
  gate: () => OPEN_GATE,
};

export function unknownError(target: { kind: ActionKind; name: string }): GatewayError {
  switch (target.kind) {
    case 'tool':
      return { kind: 'invalid_params', message: `Unknown tool: ${target.name}` };
    case 'prompt':
      return { kind: 'invalid_params', message: `Unknown prompt: ${target.name}` };
    default:
      return { kind: 'invalid_params', message: 'Resource not found', data: { uri: target.name } };
  }
}

function bucketKey(rl: RateLimitRef, principal: Principal, target: CallTarget): string {
  // Per item: a templated resource counts as its template, or every distinct uri a client
  // makes up would get a bucket of its own.
  const item = target.template ?? target.name;
  switch (rl.per) {
    case 'principal':
      return `${rl.id}\u0000p\u0000${principal.authContext}`;
    case 'tool':
      return `${rl.id}\u0000t\u0000${item}`;
    case 'upstream':
      return `${rl.id}\u0000u\u0000${target.upstream}`;
    case 'principal+tool':
      return `${rl.id}\u0000pt\u0000${principal.authContext}\u0000${item}`;
  }
}

/** A pinned tool that entered or left quarantine: its visible lists changed without any
 * list_changed from its upstream (a silent rug pull), so the wiring tells its listeners. */
export type QuarantineChange = (tool: { name: string; upstream: string; upstreamName: string }, quarantined: boolean) => void;

export function createEnforcer(deps: { policy: PolicyRuntime; limiter: RateLimiter; logger: Logger; onQuarantineChange?: QuarantineChange }): Enforcer {
  const { policy, limiter, logger } = deps;
  // Per pin version: a definition hashes once for each format some pin asks for.
  const hashes: Record<PinVersion, WeakMap<JsonObject, string>> = { 1: new WeakMap(), 2: new WeakMap() };
  // Quarantined tools by name, with the pin they failed and the hash last seen: a tool is
  // announced when it enters quarantine and when its definition goes back to the pinned
  // hash, and logged again when it changes once more. A new pin starts afresh: the policy
  // swap that brought it announces its own changes (visibility-diff.ts).
  const held = new Map<string, { pin: string; hash: string }>();
  // Bumped on every quarantine change and part of each list filter's key. The catalog reuses
  // a filtered list while the merged list and the key are unchanged, and a definition that
  // goes back to its pinned hash brings back a merged list it has filtered before: without
  // this the release would be served from that cache and never seen, or announced.
  let generation = 0;

  /** A pinned tool whose definition changed is quarantined until the pin is updated. */
  const quarantined = (p: CompiledPolicy, kind: ActionKind, name: string, item: JsonObject | undefined, upstream: string, upstreamName: string): boolean => {
    if (kind !== 'tool' || !item) return false;
    const pinned = p.pins.get(name);
    if (pinned === undefined) return false;
    const pin = pinned.sha256;
    let hash = hashes[pinned.version].get(item);
    if (hash === undefined) {
      hash = toolDefinitionHash(item, pinned.version);
      hashes[pinned.version].set(item, hash);
    }
    const entry = held.get(name);
    const before = entry?.pin === pin ? entry.hash : undefined;
    if (hash === pin) {
      if (entry) held.delete(name);
      if (before !== undefined) {
        generation++;
        logger.info('tool released from quarantine: its definition matches its pin again', { tool: name, upstream });
        deps.onQuarantineChange?.({ name, upstream, upstreamName }, false);
      }
      return false;
    }
    if (before !== hash) {
      held.set(name, { pin, hash });
      if (before === undefined) generation++;
      logger.warn('tool quarantined: its definition no longer matches its pin', { tool: name, upstream, pinned: pin, current: hash });
      if (before === undefined) deps.onQuarantineChange?.({ name, upstream, upstreamName }, true);
    }
    return true;
  };

  const visible = (principal: Principal, kind: ListKind, item: JsonObject, origin: ItemOrigin, server?: string): boolean => {
    const p = policy.current();
    const actionKind = ACTION_KIND[kind];
    // A virtual server may show another name than the one rules and pins are written for.
    const name = origin.policyName ?? ((kind === 'resources' ? item.uri : kind === 'resourceTemplates' ? item.uriTemplate : item.name) as string);
    if (quarantined(p, actionKind, name, item, origin.upstream, origin.original)) return false;
    const action = { kind: actionKind, upstream: origin.upstream, name, upstreamName: origin.original };
    return p.visible(principal, server === undefined ? action : { ...action, server });
  };

  return {
    listFilter(principal, kind, server) {
      const p = policy.current();
      // Keyed on what the policy can tell apart (principal-key.ts), not on who asks: callers
      // alike to the policy share one filtered list. Two tokens of one subject that differ in
      // a group, scope or named claim some rule matches on get different keys.
      return { key: `${p.version}\u0000${generation}\u0000${p.principalKey(principal)}`, keep: (item, origin) => visible(principal, kind, item, origin, server) };
    },
    visible,
    gate(principal, target) {
      const p = policy.current();
      if (quarantined(p, target.kind, target.name, target.item, target.upstream, target.upstreamName)) {
        return ok({ effect: 'deny', ruleId: 'quarantine', reason: `${target.name} is quarantined: its definition no longer matches its pin` });
      }
      if (target.template !== undefined) {
        // A template the caller may not see hides every uri it accounts for.
        const hidden = p.decide(principal, { kind: 'resourceTemplate', operation: 'list', upstream: target.upstream, name: target.template, upstreamName: target.template, ...(target.server === undefined ? {} : { server: target.server }) });
        if (hidden.effect === 'deny') return ok(hidden);
      }
      const action: PolicyAction = { kind: target.kind, operation: 'call', upstream: target.upstream, name: target.name, upstreamName: target.upstreamName };
      if (target.arguments) action.arguments = target.arguments;
      if (target.params) action.params = target.params;
      if (target.server !== undefined) action.server = target.server;
      const decision = p.decide(principal, action);
      // The caller turns deny into the unknown-name error; the decision keeps its rule id for audit.
      if (decision.effect === 'deny' || !decision.rateLimits?.length) return ok(decision);
      return takeLimits(decision, decision.rateLimits, principal, target);
    },
  };

  /** Every rate limit of the decision, in order; the first one exhausted refuses the call. */
  async function takeLimits(decision: Decision, limits: readonly RateLimitRef[], principal: Principal, target: CallTarget): Promise<Gate> {
    for (const rl of limits) {
      let outcome;
      try {
        outcome = await limiter.take({ key: bucketKey(rl, principal, target), capacity: rl.capacity, refillPerSecond: rl.refillPerSecond });
      } catch (e) {
        // Fail closed: a limit we cannot check is not a limit we may skip.
        logger.error('rate limiter unavailable', { error: (e as Error).message });
        return err({ kind: 'rate_limiter_unavailable' });
      }
      if (!outcome.allowed) return err({ kind: 'rate_limited', ruleId: rl.id, retryAfterMs: outcome.retryAfterMs });
    }
    return ok(decision);
  }
}

/** The enforcer as one virtual server's pipeline sees it: every list, visibility check and
 * call is judged with the server's name, so `when.server` rules apply there and only there. */
export function serverEnforcer(base: Enforcer, server: string): Enforcer {
  return {
    listFilter: (principal, kind) => base.listFilter(principal, kind, server),
    visible: (principal, kind, item, origin) => base.visible(principal, kind, item, origin, server),
    gate: (principal, target) => base.gate(principal, target.server === server ? target : { ...target, server }),
  };
}

// Builds the enforcement side of a gateway from the config: the live policy (with hot
// reload), the rate limiter (memory or Redis), the enforcer, and the policy-swap
// notifications to clients whose visible lists changed.
import { Redis } from 'ioredis';
import type { EventAuditRecord } from '../audit/audit-record.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { JsonObject } from '../protocol/message.ts';
import type { GatewayConfig } from '../config/types.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from '../limits/rate-limiter.ts';
import type { Logger } from '../telemetry/logger.ts';
import { createEnforcer, OPEN_ENFORCER, type Enforcer, type QuarantineChange } from '../policy/enforcer.ts';
import { startPolicyRuntime, type PolicyRuntime } from '../policy/policy-runtime.ts';
import { changedLists } from '../policy/visibility-diff.ts';
import type { Notifier } from '../transport/notifier.ts';

export interface Enforcement {
  enforcer: Enforcer;
  policy: PolicyRuntime | undefined;
  limiter: RateLimiter;
  /** Reloads the policy files without telling listeners of the swap: a config reload compares
   * every listener's lists itself, once, after it has swapped everything (config-swap.ts). */
  reloadPolicyQuietly(reason: string): void;
  close(): Promise<void>;
}

export interface EnforcementOptions {
  catalog: Catalog;
  /** The catalog of each virtual server in service: a policy swap is judged on the lists each listener is served. */
  servers?: { catalog(name: string): Catalog | undefined };
  notifier: Notifier;
  logger: Logger;
  event?: (event: EventAuditRecord['event'], detail: JsonObject) => void;
  /** A limiter made before (kept across config reloads, closed by its owner); made here when unset. */
  limiter?: RateLimiter;
  /** Whether the policy runtime handles SIGHUP itself (false when the config reload does). */
  signal?: boolean;
}

export function createLimiter(config: GatewayConfig): RateLimiter {
  if (config.rateLimits.store === 'memory') return createMemoryRateLimiter();
  // Bounded waits: a slow or absent Redis fails the check (closed) instead of hanging calls.
  const redis = new Redis(config.rateLimits.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1000, connectTimeout: 2000 });
  redis.on('error', () => undefined);
  return createRedisRateLimiter(redis, { prefix: config.rateLimits.prefix });
}

export function createEnforcement(config: GatewayConfig, deps: EnforcementOptions): Enforcement {
  const { logger, catalog, notifier } = deps;
  const event = deps.event ?? ((): void => undefined);
  const closeLimiter = (limiter: RateLimiter): Promise<void> => (deps.limiter === undefined ? limiter.close() : Promise.resolve());
  if (!config.policy) {
    logger.warn('no policy configured: every caller may see and call every tool; configure `policy` to enforce rules');
    const limiter = deps.limiter ?? createLimiter(config);
    return { enforcer: OPEN_ENFORCER, policy: undefined, limiter, reloadPolicyQuietly: () => undefined, close: () => closeLimiter(limiter) };
  }
  // The policy first: a bad one throws (boot exits 2), and nothing may be left open then —
  // a Redis client made before it would keep `gatehouse serve` from exiting.
  const policy = startPolicyRuntime({ ...config.policy, logger, ...(deps.signal === false ? { signal: false } : {}) });
  const limiter = deps.limiter ?? createLimiter(config);
  let quiet = false;
  policy.onReject((issues) => event('policy_rejected', { dir: config.policy!.dir, issues }));
  policy.onSwap((before, after) => {
    event('policy_reloaded', { dir: config.policy!.dir, from: before.version, to: after.version, rules: after.rules.length });
    if (quiet) return;
    const told: Promise<boolean>[] = [];
    for (const listener of notifier.all()) {
      const served = listener.server === undefined ? catalog : deps.servers?.catalog(listener.server);
      if (!listener.principal || !served) continue;
      told.push(changedLists(served, listener.principal, before, after, listener.server).then(
        (kinds) => {
          const wanted = [...kinds].filter((kind) => listener.wants.has(kind));
          for (const kind of wanted) listener.deliver(kind);
          return wanted.length > 0;
        },
        (e: unknown) => {
          logger.error('cannot tell a client its lists changed after a policy reload', { error: (e as Error).message });
          return false;
        },
      ));
    }
    // Each listener's lists are compared on their own time; this line says the last is done.
    void Promise.all(told).then(
      (t) => logger.info('policy reload: listeners told of changed lists', { listeners: t.length, told: t.filter(Boolean).length }),
      (e: unknown) => logger.error('policy reload: telling listeners failed', { error: (e as Error).message }),
    );
  });
  // A quarantined (or released) pinned tool leaves (or rejoins) the lists of everyone who may
  // see it, and its upstream said nothing: we are the only ones who can tell them.
  const onQuarantineChange: QuarantineChange = (tool, quarantined) => {
    event('tool_quarantined', { tool: tool.name, upstream: tool.upstream, quarantined });
    const action = { kind: 'tool' as const, upstream: tool.upstream, name: tool.name, upstreamName: tool.upstreamName };
    for (const listener of notifier.all()) {
      if (!listener.wants.has('tools') || !listener.principal) continue;
      if (policy.current().visible(listener.principal, listener.server === undefined ? action : { ...action, server: listener.server })) listener.deliver('tools');
    }
  };
  const enforcer = createEnforcer({ policy, limiter, logger, onQuarantineChange });
  return {
    enforcer,
    policy,
    limiter,
    reloadPolicyQuietly(reason) {
      quiet = true;
      try {
        policy.reload(reason);
      } finally {
        quiet = false;
      }
    },
    async close() {
      policy.close();
      await closeLimiter(limiter);
    },
  };
}

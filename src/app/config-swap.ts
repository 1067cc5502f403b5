// Applies a config that loaded to the running gateway, atomically: the new generation
// (gateway-generation.ts) is built beside the running one — new upstream connections made
// but not started, a new policy loaded — and only when all of it stands is it put in
// service, in one synchronous step. Requests already inside the old generation finish there;
// its retired upstream connections close once their calls end (upstream-pool.ts). A change
// to a restart-only field (live-changes.ts) refuses the reload, naming the field. Clients
// whose visible lists changed are told afterwards (reload-notices.ts).
import type { Catalog } from '../catalog/catalog.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ConfigError, formatIssue } from '../config/config-error.ts';
import { restartOnlyChanges, sameConfig, upstreamChanges, type RefusedChange } from '../config/live-changes.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { AnswerBudget } from '../limits/answer-budget.ts';
import type { LegacySessions } from '../transport/legacy-sessions.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { ApplyOutcome, ReloadTrigger } from './config-reloader.ts';
import { applyGateLimits, buildGeneration, type Generation, type SharedParts } from './gateway-generation.ts';
import { deliverChanges, snapshotLists, type ListSnapshot } from './reload-notices.ts';
import type { UpstreamPool } from './upstream-pool.ts';

export interface SwapDeps {
  current(): Generation;
  install(next: Generation): void;
  pool: UpstreamPool;
  shared: SharedParts;
  sessions: LegacySessions;
  answerBudget: AnswerBudget;
  /** Retry-After of a refused stream, as at start. */
  streamRetryAfterMs: number;
}

export function createConfigSwap(d: SwapDeps): (next: GatewayConfig, trigger: ReloadTrigger) => Promise<ApplyOutcome> {
  const { pool, shared } = d;
  const { catalog, notifier, logger } = shared;
  const catalogOf = (server: string | undefined): Catalog | undefined => (server === undefined ? catalog : shared.servers.catalog(server));
  // Every reload reads the policy files too (SIGHUP always has; a ConfigMap update may change
  // only them); when the config itself is not taken, the policy still reloads on its own.
  const policyOnly = (before: Generation, trigger: ReloadTrigger): void => {
    before.enforcement.policy?.reload(trigger);
  };

  return async (next, trigger): Promise<ApplyOutcome> => {
    const before = d.current();
    if (sameConfig(before.config, next)) {
      policyOnly(before, trigger);
      return { result: 'unchanged', detail: {} };
    }
    const refused = restartOnlyChanges(before.config, next);
    if (refused.length > 0) {
      policyOnly(before, trigger);
      return { result: 'refused', path: refused[0]!.path, reason: refusalText(refused[0]!), detail: { refused: refused.map((r) => ({ path: r.path, reason: refusalText(r) })) } };
    }
    const listeners = notifier.all();
    const listsBefore = await snapshotLists(listeners, catalogOf, before.enforcement.enforcer);
    const changes = upstreamChanges(before.config.upstreams, next.upstreams);
    const plan = pool.plan(next.upstreams, changes);
    let gen: Generation;
    try {
      gen = buildGeneration(next, plan.upstreams, shared, before);
    } catch (e) {
      await pool.discard(plan);
      policyOnly(before, trigger);
      // A policy directory that does not load is a config that does not load: its issues name their files.
      if (!(e instanceof ConfigError)) return { result: 'failed', path: '/policy', reason: (e as Error).message, detail: {} };
      const first = e.issues[0];
      return { result: 'invalid', path: first?.path ?? '', reason: first?.message ?? e.message, detail: { policyFile: first?.file ?? '', issues: e.issues.map(formatIssue) } };
    }
    // The swap, in one turn of the event loop: every request from here on meets the new config.
    // Per-user authorization first: the upstreams that commit starts ask it for their parts.
    shared.userAuth?.reconfigure(next);
    pool.commit(plan);
    applyGateLimits(gen);
    catalog.reconfigure(next, plan.upstreams);
    shared.servers.install(next, gen.servers);
    const { limits } = next;
    d.sessions.resize(limits);
    notifier.resize({ maxStreams: limits.maxStreams, maxStreamsPerPrincipal: limits.maxStreamsPerPrincipal, retryAfterMs: d.streamRetryAfterMs });
    d.answerBudget.resize(limits.maxInflightAnswerBytes);
    shared.connections.resize(limits.maxConnections);
    d.install(gen);
    if (gen.enforcement === before.enforcement) {
      gen.enforcement.reloadPolicyQuietly(trigger);
    } else {
      before.enforcement.policy?.close();
    }
    void pool.retire(plan.retired, next.shutdown.deadlineMs).catch((e: unknown) => logger.error('retiring upstream connections failed', { error: (e as Error).message }));
    void tellListeners(listsBefore, plan.made, gen).catch((e: unknown) => logger.error('config reload: telling listeners failed', { error: (e as Error).message }));
    const servers = upstreamChanges(before.config.servers, next.servers);
    const detail: JsonObject = { upstreams: { added: changes.added, removed: changes.removed, changed: changes.changed } };
    if (before.config.servers.length + next.servers.length > 0) detail.servers = { added: servers.added, removed: servers.removed, changed: servers.changed };
    return { result: 'applied', detail };
  };

  async function tellListeners(before: ListSnapshot, made: readonly Upstream[], gen: Generation): Promise<void> {
    // New connections first get their chance to answer lists (bounded by the list deadline).
    await started(made, gen.config.listDeadlineMs);
    const after = await snapshotLists([...before.keys()], catalogOf, gen.enforcement.enforcer);
    const told = deliverChanges(before, after, notifier.all());
    logger.info('config reload: listeners told of changed lists', { listeners: before.size, told });
  }
}

/** `listen.port cannot change while the gateway runs (...)`: the field as the file writes it. */
function refusalText(r: RefusedChange): string {
  return `${r.path.slice(1).replace(/\//g, '.')} cannot change while the gateway runs (${r.why}); restart the gateway to change it`;
}

/** Resolves when none of these is still starting, or after `ms`. */
function started(list: readonly Upstream[], ms: number): Promise<void> {
  const starting = (): boolean => list.some((u) => u.status().state === 'starting');
  if (!starting()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    for (const u of list) {
      u.onEvent((ev) => {
        if (ev.type !== 'state' || starting()) return;
        clearTimeout(timer);
        resolve();
      });
    }
  });
}

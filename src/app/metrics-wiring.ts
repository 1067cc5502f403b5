// The gateway's metrics and where each scrape-time reading comes from: the parts made once
// (catalog, sessions, streams, answer budget, audit trail) and, for what a config reload can
// change (the upstreams and their concurrency gates, the virtual servers), what serves now.
import type { Catalog } from '../catalog/catalog.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { MeasuredAuditTrail } from '../audit/audit-record.ts';
import type { AnswerBudget } from '../limits/answer-budget.ts';
import { createMetrics, type Metrics } from '../telemetry/metrics.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { LegacySessions } from '../transport/legacy-sessions.ts';
import type { Notifier } from '../transport/notifier.ts';
import type { Generation } from './gateway-generation.ts';
import type { ConnectionCap } from '../http/connection-cap.ts';
import type { InFlightRequests } from '../http/request-caps.ts';
import { allCatalogStats } from './server-endpoints.ts';

export interface MetricSources {
  catalog: Catalog;
  /** The virtual servers' catalogs in service now. */
  serverCatalogs: () => readonly Catalog[];
  pendingApprovals: () => number;
  sessions: LegacySessions;
  notifier: Notifier;
  answerBudget: AnswerBudget;
  audit: MeasuredAuditTrail;
  logger: Logger;
  live: () => Generation;
  connections: ConnectionCap;
  inFlight: InFlightRequests;
}

export function createGatewayMetrics(config: GatewayConfig, s: MetricSources): Metrics {
  const { catalog, audit } = s;
  return createMetrics({
    processMetrics: config.metrics.processMetrics,
    pendingApprovals: s.pendingApprovals,
    isExposedTool: (name) => catalog.exposes('tools', name) || s.serverCatalogs().some((c) => c.exposes('tools', name)),
    capacity: {
      connections: () => s.connections.size(),
      requests: () => s.inFlight.size(),
      catalog: () => {
        const servers = s.serverCatalogs();
        return servers.length === 0 ? catalog.stats() : allCatalogStats([catalog, ...servers]);
      },
      failingLists: () => catalog.failingLists(),
      sessions: () => s.sessions.size(),
      streams: () => s.notifier.size(),
      answerBytes: () => s.answerBudget.bytes(),
      upstreamCalls: () => [...s.live().gates].map(([upstream, g]) => ({ upstream, ...g.load() })),
    },
    upstreamStatus: () => Object.fromEntries(s.live().upstreams.map((u) => [u.name, u.status().state === 'up'])),
    auditStats: () => {
      const st = audit.stats();
      const since = st.retainedSince === undefined ? Number.NaN : Date.parse(st.retainedSince);
      return {
        lagSeconds: st.lagMs / 1000,
        droppedTotal: st.dropped,
        writtenTotal: st.written,
        syncsTotal: st.syncs,
        commitWaitsTotal: st.commitWaits,
        rotationsTotal: st.rotations,
        filesDeletedTotal: st.filesDeleted,
        cutTotal: st.cut,
        rejectedTotal: st.rejected,
        writeErrorsTotal: st.writeErrors,
        retainedSeconds: Number.isNaN(since) ? Number.NaN : Math.max(0, (Date.now() - since) / 1000),
      };
    },
    logger: s.logger,
  });
}

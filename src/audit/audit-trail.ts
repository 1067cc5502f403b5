// Builds the AuditTrail the pipeline writes to from the `audit:` config: the JSON Lines sink,
// or, with `enabled: false`, a trail that accepts and forgets (and says so in stats()).
// Wiring it into the request pipeline, and closing it on shutdown, is runtime.ts's job.
import type { Logger } from '../telemetry/logger.ts';
import type { AuditConfig } from './audit-config.ts';
import type { AuditSinkStats, MeasuredAuditTrail } from './audit-record.ts';
import { openJsonlSink } from './jsonl-sink.ts';

export async function openAuditTrail(config: AuditConfig, deps: { logger: Logger; now?: () => number }): Promise<MeasuredAuditTrail> {
  if (!config.enabled) {
    deps.logger.warn('audit: disabled by config (audit.enabled: false); requests leave no audit record');
    return disabledAuditTrail();
  }
  return openJsonlSink(config, deps);
}

export function disabledAuditTrail(): MeasuredAuditTrail {
  const stats: AuditSinkStats = { state: 'disabled', written: 0, dropped: 0, rejected: 0, flushes: 0, writeErrors: 0, queueDepth: 0, lagMs: 0, lastSeq: 0, rotations: 0, filesDeleted: 0, cut: 0, writes: 0, syncs: 0 };
  return {
    record: () => Promise.resolve(),
    healthy: () => true,
    close: () => Promise.resolve(),
    stats: () => ({ ...stats }),
  };
}

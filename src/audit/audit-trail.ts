// Builds the AuditTrail the pipeline writes to from the `audit:` config: the JSON Lines sink,
// or, with `enabled: false`, a trail that accepts and forgets (and says so in stats()).
// Wiring it into the request pipeline, and closing it on shutdown, is app/start-gateway.ts's job.
import type { Logger } from '../telemetry/logger.ts';
import type { AuditConfig } from './audit-config.ts';
import type { AuditSinkStats, MeasuredAuditTrail } from './audit-record.ts';
import { lockAuditDir } from './audit-dir-lock.ts';
import { AuditFileWriter } from './audit-file-writer.ts';
import { JsonlAuditSink, type JsonlSinkConfig, type JsonlSinkDeps } from './jsonl-sink.ts';

export async function openAuditTrail(config: AuditConfig, deps: JsonlSinkDeps): Promise<MeasuredAuditTrail> {
  if (!config.enabled) {
    deps.logger.warn('audit: disabled by config (audit.enabled: false); requests leave no audit record');
    return disabledAuditTrail();
  }
  return openJsonlSink(config, deps);
}

export function disabledAuditTrail(): MeasuredAuditTrail {
  const stats: AuditSinkStats = { state: 'disabled', written: 0, dropped: 0, rejected: 0, flushes: 0, writeErrors: 0, queueDepth: 0, queueBytes: 0, commitWaits: 0, lagMs: 0, lastSeq: 0, rotations: 0, filesDeleted: 0, cut: 0, writes: 0, syncs: 0 };
  return {
    record: () => Promise.resolve(),
    healthy: () => true,
    close: () => Promise.resolve(),
    stats: () => ({ ...stats }),
  };
}

/** Takes the directory's lock (audit-dir-lock.ts: one gateway per audit directory), resumes
 * the chain in config.dir and returns a sink ready to record; closing it releases the lock. */
export async function openJsonlSink(config: JsonlSinkConfig, deps: JsonlSinkDeps): Promise<JsonlAuditSink> {
  const logger = deps.logger.child({ component: 'audit' });
  const lock = await lockAuditDir(config.dir, { logger });
  const options = {
    dir: config.dir,
    file: config.file,
    maxBytes: config.rotate.maxBytes,
    maxFiles: config.rotate.maxFiles,
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(deps.openFile === undefined ? {} : { openFile: deps.openFile }),
  };
  const writer = await AuditFileWriter.open(options, logger).catch(async (e: unknown) => {
    await lock.release();
    throw e;
  });
  return new JsonlAuditSink(config, writer, logger, deps.now ?? Date.now, lock, deps.activeRequests);
}

// Records and sinks for the audit tests: realistic request records, a sink in a fresh temp
// directory with small files so rotation happens, and a memory logger to read alarms from.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RequestAuditRecord } from '../../src/audit/audit-record.ts';
import { openJsonlSink } from '../../src/audit/audit-trail.ts';
import type { JsonlSinkConfig, JsonlSinkDeps } from '../../src/audit/jsonl-sink.ts';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';

export function requestRecord(i: number, overrides: Partial<RequestAuditRecord> = {}): RequestAuditRecord {
  return {
    type: 'request',
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    requestId: `req-${i}`,
    rpcId: i,
    principal: { subject: i % 2 === 0 ? 'alice' : 'bob', method: 'api_key', groups: ['dev'] },
    era: 'modern',
    method: 'tools/call',
    upstream: i % 3 === 0 ? 'github' : 'fs',
    name: i % 3 === 0 ? 'github__create_issue' : 'fs__read_file',
    upstreamName: i % 3 === 0 ? 'create_issue' : 'read_file',
    decision: { effect: 'allow', ruleId: 'dev-tools' },
    arguments: { digest: `sha256:${String(i).padStart(64, '0')}` },
    outcome: i % 5 === 0 ? 'tool_error' : 'ok',
    upstreamMs: 10 + i,
    durationMs: 12 + i,
    responseBytes: 200 + i,
    ...overrides,
  };
}

export function tempDir(label: string): string {
  return mkdtempSync(path.join(tmpdir(), `gatehouse-audit-${label}-`));
}

export function sinkConfig(dir: string, overrides: Partial<JsonlSinkConfig> = {}): JsonlSinkConfig {
  return {
    dir,
    file: 'gatehouse-audit.jsonl',
    rotate: { maxBytes: 64 * 1024 * 1024, maxFiles: 0 },
    durability: 'sync',
    batchWindowMs: 20,
    writeTimeoutMs: 2000,
    retryIntervalMs: 50,
    onFailure: 'closed',
    maxQueue: 10_000,
    maxStringBytes: 1024,
    ...overrides,
  };
}

/** `openFile`: the audit file's opener (gated-audit-file.ts), the real one by default;
 * `activeRequests`: the gateway's count of requests being answered, none by default. */
export async function openSink(dir: string, overrides: Partial<JsonlSinkConfig> = {}, deps: Pick<JsonlSinkDeps, 'openFile' | 'activeRequests'> = {}) {
  const { logger, lines } = createMemoryLogger();
  const sink = await openJsonlSink(sinkConfig(dir, overrides), { logger, ...deps });
  return { sink, logs: lines };
}

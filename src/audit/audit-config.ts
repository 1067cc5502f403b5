// The `audit:` part of the gateway config: any input in (it is schema-checked here too, so a
// test or CLI gets the same messages), a frozen, fully defaulted AuditConfig out (docs/architecture.md
// house style 4). Regexes and JSON paths are compiled here once to report mistakes at boot;
// the runtime compiles them again from this plain data (audit-body.ts), so the config stays
// JSON. Mounting the schema under `audit:` and prefixing issue paths with `/audit` is left
// to config/.
import path from 'node:path';
import { deepFreeze } from '../config/deep-freeze.ts';
import { durationMs, durationTooLong } from '../config/duration.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { createSchemaCheck } from '../config/schema-issues.ts';
import { DEFAULT_AUDIT_FILE } from './audit-files.ts';
import {
  AUDIT_CONFIG_SCHEMA,
  DEFAULT_REDACT_KEYS,
  type BodyMode,
  type Durability,
  type FailureMode,
  type RawAuditConfig,
} from './audit-config-schema.ts';
import { compileRedaction, type PatternSpec, type RedactionSpec } from './redact.ts';
import { BUILTIN_PATTERN_NAMES, type BuiltinPatternName } from './redact-patterns.ts';

export { AUDIT_CONFIG_SCHEMA } from './audit-config-schema.ts';
export type { BodyMode, Durability, FailureMode, RawAuditConfig } from './audit-config-schema.ts';

export interface AuditRule {
  /** Glob over the exposed tool name. */
  tool: string;
  arguments?: BodyMode;
  results?: BodyMode;
}

export interface AuditConfig {
  enabled: boolean;
  /** Absolute. */
  dir: string;
  file: string;
  rotate: { maxBytes: number; maxFiles: number };
  durability: Durability;
  batchWindowMs: number;
  writeTimeoutMs: number;
  retryIntervalMs: number;
  onFailure: FailureMode;
  maxQueue: number;
  /** Bytes of records waiting for the disk at most (UTF-8 of their JSON). */
  maxQueueBytes: number;
  /** In sync mode, how long a write waits for more records when calls overlap (commit-timer.ts); 0: never. */
  groupCommitWaitMs: number;
  /** Longest string kept whole in a record (cap-strings.ts). */
  maxStringBytes: number;
  record: { arguments: BodyMode; results: BodyMode };
  redact: RedactionSpec;
  rules: readonly AuditRule[];
}

export interface AuditIssue {
  /** JSON pointer relative to the `audit` value, e.g. `/redact/keys/1`. */
  path: string;
  message: string;
}

export const AUDIT_DEFAULTS = {
  dir: 'audit',
  file: DEFAULT_AUDIT_FILE,
  maxBytes: '64MiB',
  maxFiles: 20,
  // Not batch: with group commit, sync is faster and adds one fsync of latency instead of a
  // whole batch window (docs/audit.md, Durability, has the measurements).
  durability: 'sync',
  batchWindow: '50ms',
  writeTimeout: '5s',
  retryInterval: '1s',
  onFailure: 'closed',
  maxQueue: 10_000,
  maxQueueBytes: '64MiB',
  groupCommitWait: '3ms',
  maxStringBytes: '1KiB',
  body: 'digest',
} as const;

const checkAuditSchema = createSchemaCheck(AUDIT_CONFIG_SCHEMA);

const UNIT_BYTES: Readonly<Record<string, number>> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/**
 * `raw` is the `audit:` value, or undefined when the key is absent (everything defaulted:
 * the audit trail is on unless disabled). `baseDir` is the config file's directory.
 */
export function normalizeAuditConfig(raw: unknown, baseDir: string): Result<AuditConfig, AuditIssue[]> {
  const schemaIssues = checkAuditSchema(raw ?? {});
  if (schemaIssues.length > 0) return err(schemaIssues.map(({ path: p, message }) => ({ path: p, message })));
  const r = (raw ?? {}) as RawAuditConfig;
  const issues: AuditIssue[] = [];
  const ms = (value: string | number | undefined, fallback: string, key: string): number => {
    const result = durationMs(value ?? fallback);
    if (result !== undefined) return result;
    issues.push({ path: `/${key}`, message: durationTooLong(value ?? fallback) });
    return 0;
  };
  const maxBytes = byteSize(r.rotate?.maxBytes ?? AUDIT_DEFAULTS.maxBytes);
  if (maxBytes === undefined) issues.push({ path: '/rotate/maxBytes', message: 'size too large' });
  const maxQueueBytes = byteSize(r.maxQueueBytes ?? AUDIT_DEFAULTS.maxQueueBytes);
  if (maxQueueBytes === undefined) issues.push({ path: '/maxQueueBytes', message: 'size too large' });
  const maxStringBytes = byteSize(r.maxStringBytes ?? AUDIT_DEFAULTS.maxStringBytes);
  if (maxStringBytes === undefined || maxStringBytes < 64) issues.push({ path: '/maxStringBytes', message: maxStringBytes === undefined ? 'size too large' : 'expected at least 64 bytes' });
  const redact: RedactionSpec = {
    keys: r.redact?.keys ?? [...DEFAULT_REDACT_KEYS],
    paths: r.redact?.paths ?? [],
    patterns: (r.redact?.patterns ?? [...BUILTIN_PATTERN_NAMES]).map(patternSpec),
  };
  const compiled = compileRedaction(redact);
  if (!compiled.ok) issues.push(...compiled.error.map((i) => ({ path: `/redact${i.path}`, message: i.message })));
  const config: AuditConfig = {
    enabled: r.enabled ?? true,
    dir: path.resolve(baseDir, r.dir ?? AUDIT_DEFAULTS.dir),
    file: r.file ?? AUDIT_DEFAULTS.file,
    rotate: { maxBytes: maxBytes ?? 0, maxFiles: r.rotate?.maxFiles ?? AUDIT_DEFAULTS.maxFiles },
    durability: r.durability ?? AUDIT_DEFAULTS.durability,
    batchWindowMs: ms(r.batchWindow, AUDIT_DEFAULTS.batchWindow, 'batchWindow'),
    writeTimeoutMs: ms(r.writeTimeout, AUDIT_DEFAULTS.writeTimeout, 'writeTimeout'),
    retryIntervalMs: ms(r.retryInterval, AUDIT_DEFAULTS.retryInterval, 'retryInterval'),
    onFailure: r.onFailure ?? AUDIT_DEFAULTS.onFailure,
    maxQueue: r.maxQueue ?? AUDIT_DEFAULTS.maxQueue,
    maxQueueBytes: maxQueueBytes ?? 0,
    groupCommitWaitMs: ms(r.groupCommitWait, AUDIT_DEFAULTS.groupCommitWait, 'groupCommitWait'),
    maxStringBytes: maxStringBytes ?? 0,
    record: {
      arguments: r.record?.arguments ?? AUDIT_DEFAULTS.body,
      results: r.record?.results ?? AUDIT_DEFAULTS.body,
    },
    redact,
    rules: (r.rules ?? []).map((rule) => ({ ...rule })),
  };
  if (config.writeTimeoutMs === 0) issues.push({ path: '/writeTimeout', message: 'expected a duration above 0' });
  if (config.retryIntervalMs === 0) issues.push({ path: '/retryInterval', message: 'expected a duration above 0' });
  if (issues.length > 0) return err(issues);
  return ok(deepFreeze(config));
}

/** Bytes of a schema-valid size, or undefined beyond Number.MAX_SAFE_INTEGER. */
export function byteSize(value: string | number): number | undefined {
  if (typeof value === 'number') return value;
  const match = /^([0-9]+)([A-Za-z]*)$/.exec(value);
  if (match === null) throw new Error(`byteSize: unchecked size ${JSON.stringify(value)}`);
  const bytes = Number(match[1]) * (UNIT_BYTES[match[2] || 'B'] ?? 1);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

function patternSpec(p: string | { name: string; regex: string; flags?: string }): PatternSpec {
  if (typeof p === 'string') return { kind: 'builtin', name: p as BuiltinPatternName };
  return { kind: 'custom', name: p.name, regex: p.regex, flags: p.flags ?? '' };
}

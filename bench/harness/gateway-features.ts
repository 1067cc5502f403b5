// Optional gateway features a benchmark arm can turn on: identity (one API key, sent as
// X-API-Key), a policy directory (bench-policies.ts), and the audit trail and metrics. Audit
// and metrics are being wired into the config while this benchmark exists, so their keys are
// only written when schema/gatehouse.schema.json (read at run time) has them: an arm asking
// for them picks them up as soon as they land, and reports which ones it got.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCHEMA = fileURLToPath(new URL('../../schema/gatehouse.schema.json', import.meta.url));

/** The benchmark client's API key (random enough to pass `gatehouse key hash`'s warning). */
export const BENCH_API_KEY = 'gatehouse-bench-6f1d2c9a8b7e4f30a1c5';
export const API_KEY_HEADERS: Readonly<Record<string, string>> = { 'x-api-key': BENCH_API_KEY };
/** Who the key authenticates as; the bench policies grant this principal what it calls. */
export const BENCH_PRINCIPAL = { subject: 'bench-client', groups: ['bench', 'analysts'] } as const;

/** `identity:` with one API key (hashed, as `gatehouse key hash` prints it). */
export function identityConfig(): Record<string, unknown> {
  return {
    identity: {
      resource: 'http://127.0.0.1/mcp',
      apiKeys: [
        {
          id: 'bench',
          sha256: createHash('sha256').update(BENCH_API_KEY).digest('hex'),
          subject: BENCH_PRINCIPAL.subject,
          groups: [...BENCH_PRINCIPAL.groups],
        },
      ],
    },
  };
}

/** `policy:` naming a directory (absolute), default deny as in the examples. */
export function policyConfig(dir: string): Record<string, unknown> {
  return { policy: { dir, defaultEffect: 'deny' } };
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
}

function topLevelSchema(): Record<string, SchemaNode> {
  try {
    return (JSON.parse(readFileSync(SCHEMA, 'utf8')) as SchemaNode).properties ?? {};
  } catch {
    return {};
  }
}

export interface Observability {
  /** Config keys to merge into the gateway config. */
  config: Record<string, unknown>;
  /** What was turned on, e.g. ['audit'] — empty while the config knows neither key. */
  enabled: string[];
}

/** Audit (into `auditDir`; `batchWindow` given: durability batch with that window, else the
 * default sync) and metrics on, as far as the config schema knows them. */
export function observabilityOn(auditDir: string, batchWindow?: string): Observability {
  const schema = topLevelSchema();
  const config: Record<string, unknown> = {};
  const enabled: string[] = [];
  if (schema.audit) {
    config.audit = batchWindow === undefined ? { dir: auditDir } : { dir: auditDir, durability: 'batch', batchWindow };
    enabled.push(batchWindow === undefined ? 'audit' : `audit (batch, ${batchWindow})`);
  }
  if (schema.metrics) {
    // Metrics may be always on (GET /metrics) with no switch; only set one when it exists.
    if (schema.metrics.properties?.enabled) config.metrics = { enabled: true };
    enabled.push('metrics');
  }
  return { config, enabled };
}

/** What a running gateway has on: `enabled` plus metrics when it serves GET /metrics (they
 * may be always on, with no config key), e.g. "audit + metrics". */
export async function describeObservability(obs: Observability, port: number): Promise<string> {
  const on = [...obs.enabled];
  if (!on.includes('metrics') && (await servesMetrics(port))) on.push('metrics');
  const off = ['audit', 'metrics'].filter((f) => !on.some((o) => o.startsWith(f)));
  const perSync = on.some((f) => f.startsWith('audit')) ? await auditRecordsPerSync(port) : undefined;
  return [
    on.join(' + '),
    perSync === undefined ? '' : `${perSync.toFixed(1)} audit records per fdatasync`,
    off.length ? `${off.join(', ')}: not in the gateway yet` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** Records written ÷ fdatasyncs over the gateway's life, from its /metrics (group commit at work). */
export async function auditRecordsPerSync(port: number): Promise<number | undefined> {
  const { written, syncs } = await auditCounters(port);
  const ratio = written / syncs;
  return Number.isFinite(ratio) ? ratio : undefined;
}

/** The gateway's audit records written, fdatasyncs, and writes that waited for records of
 * requests under way (group commit), so far (NaN when it has no audit). */
export async function auditCounters(port: number): Promise<{ written: number; syncs: number; waits: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  const text = res?.ok ? await res.text() : '';
  const read = (name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
  return { written: read('gatehouse_audit_records_written_total'), syncs: read('gatehouse_audit_syncs_total'), waits: read('gatehouse_audit_commit_waits_total') };
}

export async function servesMetrics(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  await res?.body?.cancel();
  return res?.ok ?? false;
}

/** What a plain arm (observabilityOff) still has on, e.g. "audit off; metrics on (no switch)". */
export async function describePlain(port: number): Promise<string> {
  const off = Object.keys(observabilityOff()).map((k) => `${k} off`);
  const metrics = !off.includes('metrics off') && (await servesMetrics(port)) ? ['metrics on (no switch)'] : [];
  return [...off, ...metrics].join('; ');
}

/** Keys that switch audit and metrics off where they default on, for plain arms. */
export function observabilityOff(): Record<string, unknown> {
  const schema = topLevelSchema();
  const config: Record<string, unknown> = {};
  if (schema.audit?.properties?.enabled) config.audit = { enabled: false };
  if (schema.metrics?.properties?.enabled) config.metrics = { enabled: false };
  return config;
}

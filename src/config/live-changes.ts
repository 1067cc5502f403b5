// What a config reload may change in a running gateway, and what it would change: pure
// comparison of two validated configs (the running one and the one just loaded). A field in
// RESTART_ONLY holds something made once at start (a bound socket, the audit trail and its
// lock, the key that seals sessions, stores holding counters or pending approvals, caches
// sized at start); changing one refuses the whole reload, naming the field, and the running
// config stays. Everything else is taken live, virtual servers (`servers:`) included (README,
// Reloading the configuration). Applying the change is left to app/config-swap.ts.
import type { GatewayConfig } from './types.ts';

export interface RestartOnlyField {
  /** JSON pointer into the config as written, e.g. `/listen/port`. */
  path: string;
  /** Why it cannot change while running, for the refusal message. */
  why: string;
  /** Only a change from one value to another is refused: setting it where the running config
   * has none, or removing it (what it made stays open, unused), is taken. */
  bothSet?: true;
}

export const RESTART_ONLY: readonly RestartOnlyField[] = [
  { path: '/listen/host', why: 'the listener is bound at start' },
  { path: '/listen/port', why: 'the listener is bound at start' },
  { path: '/listen/path', why: 'clients and probes hold the endpoint URL' },
  { path: '/admin', why: 'the admin listener is bound at start' },
  { path: '/sessions/secret', why: 'it seals every legacy session id and list cursor already handed out' },
  { path: '/sessions/idleTimeout', why: 'sessions are swept on a timer set at start' },
  { path: '/audit', why: 'the audit trail (its directory lock and hash chain) is opened once' },
  { path: '/approvals', why: 'pending approvals live in the store opened at start' },
  { path: '/rateLimits', why: 'rate-limit counters live in the store opened at start' },
  { path: '/metrics/processMetrics', why: 'metric collectors are registered at start' },
  { path: '/limits/maxHeaderBytes', why: "Node's HTTP parser is sized for it when the listener is made" },
  { path: '/limits/catalogCacheBytes', why: 'the catalog caches are sized at start' },
  { path: '/listRetry', why: 'the list circuit is made at start' },
  { path: '/userAuth/store', why: "users' sealed tokens live in the store in use", bothSet: true },
];

export interface RefusedChange {
  path: string;
  why: string;
}

export interface UpstreamChanges {
  added: string[];
  removed: string[];
  /** Same name, other settings: a new connection (or child) replaces the old one. */
  changed: string[];
  kept: string[];
}

/** The restart-only fields whose values differ, in RESTART_ONLY order. */
export function restartOnlyChanges(before: GatewayConfig, after: GatewayConfig): RefusedChange[] {
  return RESTART_ONLY.filter((f) => !(f.bothSet && (valueAt(before, f.path) === undefined || valueAt(after, f.path) === undefined)) && !sameValue(valueAt(before, f.path), valueAt(after, f.path))).map((f) => ({
    path: f.path,
    why: f.why,
  }));
}

/** By name and settings; for virtual servers (`servers:`) too. */
export function upstreamChanges(before: readonly { name: string }[], after: readonly { name: string }[]): UpstreamChanges {
  const old = new Map(before.map((u) => [u.name, u]));
  const next = new Set(after.map((u) => u.name));
  const out: UpstreamChanges = { added: [], removed: [], changed: [], kept: [] };
  for (const u of after) {
    const was = old.get(u.name);
    if (was === undefined) out.added.push(u.name);
    else (sameValue(was, u) ? out.kept : out.changed).push(u.name);
  }
  for (const u of before) if (!next.has(u.name)) out.removed.push(u.name);
  return out;
}

/** Whether two configs are the same in every field (a reload that changes nothing). */
export function sameConfig(before: GatewayConfig, after: GatewayConfig): boolean {
  return sameValue(before, after);
}

/** Paths are those of the normalized config, which keeps the names the file uses, but for durations (`idleTimeout` -> `idleTimeoutMs`). */
function valueAt(config: GatewayConfig, pointer: string): unknown {
  let v: unknown = config;
  for (const key of pointer.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    const o = v as Record<string, unknown>;
    v = key in o ? o[key] : o[`${key}Ms`];
  }
  return v;
}

/** Structural equality of config values: plain objects, arrays, byte arrays and primitives. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameValue(x, (b as unknown[])[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

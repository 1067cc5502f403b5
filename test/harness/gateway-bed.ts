// The set-up most end-to-end suites share, as one call: before the suite, start the
// upstream(s), then a gateway configured around them, and wait until every upstream is up;
// after it, close the gateway and then the upstreams (so nothing calls a closed upstream).
// Hooks the file registers after this call run after the bed is up, and theirs to close
// (clients, say) run before it is taken down.
import { afterAll, beforeAll } from 'vitest';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { EVERYTHING_SERVER, startTestGateway, type TestGateway } from './gateway.ts';

interface Closable {
  close(): Promise<unknown> | unknown;
}

/** One upstream, or several in an array or a record. */
type Upstreams = Closable | readonly Closable[] | Readonly<Record<string, Closable>>;

export interface GatewayBed<U extends Upstreams> {
  upstream: U;
  gw: TestGateway;
}

export interface GatewayBedSpec<U extends Upstreams> {
  upstream: () => Promise<U>;
  /** The gateway config (YAML), written around the started upstream(s). */
  config: (upstream: U) => string;
  /** Where the gateway reads OTEL_* and `${VAR}` settings; process.env by default. */
  env?: (upstream: U) => NodeJS.ProcessEnv;
  /** Hands the bed to the suite's own variables once it is up. */
  ready: (bed: GatewayBed<U>) => void;
}

export function useGatewayBed<U extends Upstreams>(spec: GatewayBedSpec<U>): void {
  let upstream: U | undefined;
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    upstream = await spec.upstream();
    gw = await startTestGateway(spec.config(upstream), spec.env?.(upstream));
    await gw.waitUp();
    spec.ready({ upstream, gw });
  });
  afterAll(async () => {
    await gw?.close();
    if (upstream !== undefined) await closeAll(upstream);
  });
}

/** One upstream alone behind the gateway, configured as `name` with nothing else set. */
export function useOneUpstreamBed<U extends Closable & { url: string }>(name: string, upstream: () => Promise<U>, ready: (bed: GatewayBed<U>) => void): void {
  useGatewayBed({ upstream, config: (up) => `upstreams:\n  - { name: ${name}, url: "${up.url}" }\n`, ready });
}

/** One upstream of each kind behind the gateway: the modern fixture as `modern`, the legacy
 * one as `legacy`, and server-everything over stdio as `everything`. */
export function useErasBed(ready: (bed: GatewayBed<{ modern: ModernUpstream; legacy: LegacyUpstream }>) => void): void {
  useGatewayBed({
    upstream: () => startAll({ modern: startModernUpstream(), legacy: startLegacyUpstream() }),
    config: (up) => `
upstreams:
  - name: modern
    url: ${up.modern.url}
  - name: legacy
    url: ${up.legacy.url}
  - name: everything
    command: ${process.execPath}
    args: ["${EVERYTHING_SERVER}"]
`,
    ready,
  });
}

/** Starts several at once: `startAll({ a: startA(), b: startB() })` resolves to `{ a, b }`. */
export async function startAll<R extends Record<string, Promise<Closable>>>(starting: R): Promise<{ [K in keyof R]: Awaited<R[K]> }> {
  const entries = await Promise.all(Object.entries(starting).map(async ([k, p]) => [k, await p] as const));
  return Object.fromEntries(entries) as { [K in keyof R]: Awaited<R[K]> };
}

function closeAll(upstream: Upstreams): Promise<unknown> {
  if ('close' in upstream && typeof upstream.close === 'function') return Promise.resolve(upstream.close());
  return Promise.all(Object.values(upstream as Record<string, Closable>).map((u) => u.close()));
}

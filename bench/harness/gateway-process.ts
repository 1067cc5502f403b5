// Gatehouse as a separate process (`node bin/gatehouse.js serve --config FILE --port N`),
// pinned to SERVER_CPU so its CPU time can be read from /proc and it competes with nothing
// but the upstream it fronts. Optionally under `--cpu-prof`, with a preload that dumps the
// tsx source maps at exit so profile positions map back to src/*.ts lines. Features that
// default on once wired (the audit trail) are switched off unless the arm passes them in
// `config` (gateway-features.ts), so a plain arm measures the plain proxy path.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { freePort, SERVER_CPU, spawnPinned, stderrTail, stopProcess, waitFor, type Pinning } from './child-processes.ts';
import { observabilityOff } from './gateway-features.ts';

/** A Streamable HTTP upstream (`url`, and its `timeout` when not the default) or a stdio one (`command` + `args`). */
export type GatewayUpstream = { name: string; url: string; timeout?: string } | { name: string; command: string; args: readonly string[] };

export interface GatewayOptions {
  upstreams: readonly GatewayUpstream[];
  /** Page size of merged lists (limits.pageSize); the default 500 would paginate big lists. */
  pageSize?: number;
  /** Run under `node --cpu-prof`, writing the profile and source maps into this directory. */
  profileDir?: string;
  /** More top-level config keys (identity, policy, audit ...), written as given. */
  config?: Record<string, unknown>;
  /** Runs on the written config file before the gateway starts (e.g. `gatehouse overlays confirm`). */
  beforeStart?: (configFile: string) => Promise<void>;
  /** Another checkout of Gatehouse to run instead of this one (`--baseline`): its bin/gatehouse.js. */
  checkout?: string;
}

export interface GatewayProcess {
  pid: number;
  port: number;
  url: string;
  stop(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(REPO_ROOT, 'bin/gatehouse.js');
// A profiled gateway runs the TypeScript sources through tsx, whose source maps the dump
// below saves, so profile positions read as src/ file:line (bin/ runs the compiled dist/).
const SOURCE_MAIN = join(REPO_ROOT, 'src/main.ts');
const SOURCE_MAP_DUMP = fileURLToPath(new URL('../profile/source-map-dump.ts', import.meta.url));

interface Readiness {
  upstreams?: { state?: string }[];
}

export async function startGateway(pinning: Pinning, tmpDir: string, opts: GatewayOptions): Promise<GatewayProcess> {
  const port = await freePort();
  const dir = join(tmpDir, `gateway-${port}`);
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, 'gatehouse.yaml');
  writeFileSync(
    configFile,
    stringify({
      listen: { host: '127.0.0.1', port },
      ...(opts.pageSize ? { limits: { pageSize: opts.pageSize } } : {}),
      ...observabilityOff(),
      ...opts.config,
      upstreams: opts.upstreams.map((u) => ('url' in u ? { name: u.name, url: u.url, ...(u.timeout ? { timeout: u.timeout } : {}) } : { name: u.name, command: u.command, args: [...u.args] })),
    }),
  );
  await opts.beforeStart?.(configFile);
  // BENCH_GATEWAY_NODE_FLAGS: extra node flags for Gatehouse only (e.g. V8 heap settings).
  const extraFlags = process.env.BENCH_GATEWAY_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
  const nodeFlags = [
    ...extraFlags,
    ...(opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`, '--import', 'tsx', '--import', SOURCE_MAP_DUMP] : []),
  ];
  const bin = opts.checkout !== undefined ? join(opts.checkout, 'bin/gatehouse.js') : opts.profileDir ? SOURCE_MAIN : BIN;
  const child = spawnPinned(pinning, SERVER_CPU, process.execPath, [...nodeFlags, bin, 'serve', '--config', configFile, '--port', String(port)], {
    cwd: opts.checkout ?? REPO_ROOT,
    env: { ...process.env, GATEHOUSE_LOG_LEVEL: 'warn', ...(opts.profileDir ? { BENCH_SOURCE_MAP_DIR: opts.profileDir } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const tail = stderrTail(child);
  try {
    // Ready = listening and every upstream probed and up (era known, session open).
    await waitFor('gatehouse', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as Readiness;
      return (body.upstreams ?? []).length === opts.upstreams.length && (body.upstreams ?? []).every((u) => u.state === 'up');
    }, child, 30_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${tail()}`);
  }
  return {
    pid: child.pid!,
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    // SIGTERM drains and exits normally, which is also when --cpu-prof writes its profile.
    stop: () => stopProcess(child, 10_000),
  };
}

// Probe (not part of `npm run bench`, not a test): bytes Gatehouse allocates per plain legacy
// tools/call, and where. Gatehouse (plain: no identity, policy or audit) in front of
// server-everything, loaded at full speed by the benchmark's load generator (16 connections);
// after a warm-up, V8's sampling heap profiler (harness/allocation-sampler.mjs, preloaded)
// samples every allocation over the measured seconds, objects already collected included.
// Printed: bytes per call in all, by area (a src/ file, an npm package, a node: internal
// module) and the top allocating functions. With `--baseline DIR` (a built checkout, as for
// `npm run bench -- --baseline`), the same for that checkout's gateway, one after the other.
// Sampling is statistical (one sample per 512 bytes on average): totals of two runs of the same
// code differ by a few per cent, single functions by more; compare totals, over two runs.
//   node --import tsx bench/probes/allocations.ts [seconds] [--baseline DIR] [--top N]
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectPinning } from '../harness/child-processes.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { LoadGenerator, runFailure } from '../harness/load-generator.ts';
import type { WireRequest } from '../harness/mcp-wire.ts';
import { startEverything } from '../harness/upstream-processes.ts';

const SAMPLER = fileURLToPath(new URL('../harness/allocation-sampler.mjs', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WARMUP_SEC = 3;
const CONNECTIONS = 16;
const PROFILE_WAIT_MS = 10_000;

const args = process.argv.slice(2);
const seconds = Number(args.find((a) => /^\d+$/.test(a)) ?? 4);
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const baseline = flag('--baseline');
const top = Number(flag('--top') ?? 25);
if (baseline !== undefined && !existsSync(join(resolve(baseline), 'bin/gatehouse.js'))) throw new Error(`--baseline ${baseline}: no bin/gatehouse.js there (a Gatehouse checkout, built with npm run build)`);

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** Where an allocating function lives, as the CPU profile summary names areas. */
function areaOf(url: string): string {
  const dist = /\/dist\/(.+)\.js$/.exec(url);
  if (dist) return `src/${dist[1]}.ts`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return `node:${url.replace(/^node:(internal\/)?/, '').split(/[/:]/)[0]}`;
  return url === '' ? '(V8 and native)' : url;
}

function siteOf(n: HeapNode): string {
  const url = n.callFrame.url;
  const where = url.replace(REPO_ROOT, '').replace(/^file:\/\//, '');
  return `${n.callFrame.functionName || '(anonymous)'}  ${where || '(native)'}${where ? `:${n.callFrame.lineNumber + 1}` : ''}`;
}

const pinning = detectPinning(availableParallelism());
const gen = LoadGenerator.start(pinning);
const tmpDir = mkdtempSync(join(tmpdir(), 'gatehouse-allocations-'));
const everything = await startEverything(pinning);
process.env.BENCH_GATEWAY_NODE_FLAGS = [process.env.BENCH_GATEWAY_NODE_FLAGS ?? '', `--import=${SAMPLER}`].join(' ').trim();
try {
  const arms: { label: string; checkout?: string }[] = [{ label: 'this checkout' }, ...(baseline ? [{ label: `baseline ${baseline}`, checkout: resolve(baseline) }] : [])];
  for (const arm of arms) {
    const out = join(tmpDir, `allocations-${arms.indexOf(arm)}.json`);
    process.env.GATEHOUSE_ALLOCATION_PROFILE = out;
    const gw = await startGateway(pinning, tmpDir, { upstreams: [{ name: 'everything', url: everything.url }], ...(arm.checkout ? { checkout: arm.checkout } : {}) });
    try {
      const request: WireRequest = { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gw.url), tool: 'everything__echo' };
      await gen.run({ url: gw.url, connections: CONNECTIONS, durationSec: WARMUP_SEC, request });
      process.kill(gw.pid, 'SIGUSR2');
      const load = await gen.run({ url: gw.url, connections: CONNECTIONS, durationSec: seconds, request });
      process.kill(gw.pid, 'SIGUSR2');
      const failed = runFailure(load);
      if (failed) throw new Error(`${arm.label}: ${failed}`);
      const deadline = Date.now() + PROFILE_WAIT_MS;
      while (!existsSync(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (!existsSync(out)) throw new Error(`${arm.label}: no allocation profile written within ${PROFILE_WAIT_MS} ms`);
      // The sampler calls the stop just after the last request; one more moment for the file to be whole.
      let profile: { head: HeapNode } | undefined;
      while (profile === undefined && Date.now() < deadline) {
        try {
          profile = JSON.parse(readFileSync(out, 'utf8')) as { head: HeapNode };
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      if (profile === undefined) throw new Error(`${arm.label}: the allocation profile could not be read`);
      const calls = load.completed;
      const bySite = new Map<string, number>();
      const byArea = new Map<string, number>();
      let total = 0;
      const walk = (n: HeapNode): void => {
        if (n.selfSize > 0) {
          total += n.selfSize;
          const site = siteOf(n);
          bySite.set(site, (bySite.get(site) ?? 0) + n.selfSize);
          const area = areaOf(n.callFrame.url);
          byArea.set(area, (byArea.get(area) ?? 0) + n.selfSize);
        }
        for (const c of n.children) walk(c);
      };
      walk(profile.head);
      const perCall = (bytes: number): string => `${Math.round(bytes / calls)}`.padStart(7);
      const src = [...byArea].filter(([a]) => a.startsWith('src/')).reduce((s, [, b]) => s + b, 0);
      process.stdout.write(`\n${arm.label}: ${calls} calls (${load.rps.toFixed(0)}/s), ${perCall(total).trim()} bytes allocated per call, ${perCall(src).trim()} of them in src/\n`);
      process.stdout.write('  by area (bytes per call)\n');
      for (const [area, bytes] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${perCall(bytes)}  ${area}\n`);
      process.stdout.write('  by function (bytes per call)\n');
      for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${perCall(bytes)}  ${site}\n`);
    } finally {
      await gw.stop();
    }
  }
} finally {
  await everything.stop();
  await gen.close();
}

// Probe (not part of `npm run bench`, not a test): how much of each plain tools/call outlives
// the call in Gatehouse's young generation. A gateway (plain: no identity, policy or audit) in
// front of the raw JSON upstream (harness/json-upstream.ts, in this process), under V8's
// `--trace-gc-nvp`, loaded at full speed by the benchmark's load generator; after a warm-up,
// the scavenges of the measured seconds are read from the trace: how many, the bytes each
// promoted to the old generation, per call, and their pauses. A call's objects should die
// young: what a scavenge promotes was alive at two scavenges in a row (a tenth of a second
// apart at this load), which a call that takes a millisecond is not, unless something keeps
// it. Promoted bytes are what later full collections must mark, and scavenge pauses grow with
// what survives them, which is what the p99s of the latency targets feel. For comparison, a
// bare node:http server answering the same calls promotes almost nothing per scavenge.
//   node --import tsx bench/probes/young-gc.ts [seconds] [--era modern|legacy] [--connections N] [--pad BYTES] [--policy] [--baseline DIR]
// `--pad` makes each result that many bytes longer (to see whether the result text outlives
// its call); `--policy` runs the gateway of target 1's second arm instead of a plain one (an API
// key, the 10-rule bench policy, metrics and audit `durability: batch`); `--baseline DIR` runs
// another built checkout's gateway the same way, after this one.
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { detectPinning, freePort, SERVER_CPU, spawnPinned, stderrTail, stopProcess, waitFor } from '../harness/child-processes.ts';
import { writeSmallPolicy } from '../harness/bench-policies.ts';
import { API_KEY_HEADERS, identityConfig, observabilityOff, observabilityOn, policyConfig } from '../harness/gateway-features.ts';
import { startJsonUpstream } from '../harness/json-upstream.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { LoadGenerator, runFailure } from '../harness/load-generator.ts';
import type { WireRequest } from '../harness/mcp-wire.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WARMUP_SEC = 3;

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
/** The options that take a value; any other bare number is the seconds. */
const VALUED = new Set(['--era', '--connections', '--pad', '--baseline']);
const seconds = Number(args.find((a, i) => /^\d+$/.test(a) && !VALUED.has(args[i - 1] ?? '')) ?? 6);
if (!(seconds >= 1 && seconds <= 120)) throw new Error(`seconds ${seconds}: 1 to 120`);
const era = flag('--era') ?? 'modern';
const connections = Number(flag('--connections') ?? 8);
const pad = Number(flag('--pad') ?? 0);
const baseline = flag('--baseline');
const withPolicy = args.includes('--policy');
if (era !== 'modern' && era !== 'legacy') throw new Error(`--era ${era}: modern or legacy`);
if (!(connections >= 1 && connections <= 64)) throw new Error(`--connections ${connections}: 1 to 64`);
if (!(pad >= 0 && pad <= 1_000_000)) throw new Error(`--pad ${pad}: 0 to 1000000 bytes`);
if (baseline !== undefined && !existsSync(join(resolve(baseline), 'bin/gatehouse.js'))) throw new Error(`--baseline ${baseline}: no bin/gatehouse.js there (a Gatehouse checkout, built with npm run build)`);

interface Scavenges {
  count: number;
  promotedBytes: number[];
  pausesMs: number[];
  fullGcs: number;
}

/** The scavenges (gc=s) and full collections (gc=ms / mmc) in a `--trace-gc-nvp` log. */
function readTrace(text: string): Scavenges {
  const lines = text.split('\n');
  const field = (line: string, key: string): number => Number(new RegExp(`\\b${key}=([\\d.]+)`).exec(line)?.[1] ?? Number.NaN);
  const scavenges = lines.filter((l) => /\bgc=s\b/.test(l));
  return {
    count: scavenges.length,
    promotedBytes: scavenges.map((l) => field(l, 'promoted')),
    pausesMs: scavenges.map((l) => field(l, 'pause')),
    fullGcs: lines.filter((l) => /\bgc=(ms|mmc|mc)\b/.test(l)).length,
  };
}

const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

const pinning = detectPinning(availableParallelism());
const padding = 'x'.repeat(pad);
// The load generator checks each echo: the padding goes into `_meta`, which it does not read.
const upstream = await startJsonUpstream({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }], answer: (a) => String(a?.message), ...(pad > 0 ? { meta: { padding } } : {}) });
const gen = LoadGenerator.start(pinning);
const tmpDir = mkdtempSync(join(tmpdir(), 'gatehouse-young-gc-'));
try {
  const arms = [{ label: 'this checkout', root: REPO_ROOT }, ...(baseline ? [{ label: `baseline ${baseline}`, root: resolve(baseline) }] : [])];
  for (const arm of arms) {
    const port = await freePort();
    const configFile = join(tmpDir, `gatehouse-${port}.yaml`);
    const features = withPolicy
      ? { ...identityConfig(), ...policyConfig(writeSmallPolicy(join(tmpDir, `policy-${port}`)).dir), ...observabilityOn(join(tmpDir, `audit-${port}`), '5ms').config }
      : observabilityOff();
    writeFileSync(configFile, stringify({ listen: { host: '127.0.0.1', port }, ...features, upstreams: [{ name: 'everything', url: upstream.url }] }));
    const traceFile = join(tmpDir, `gc-${port}.log`);
    const traceFd = openSync(traceFile, 'w');
    // The trace goes to stdout, which is this file: the gateway serves HTTP here, not stdio.
    const child = spawnPinned(pinning, SERVER_CPU, process.execPath, ['--trace-gc-nvp', join(arm.root, 'bin/gatehouse.js'), 'serve', '--config', configFile, '--port', String(port)], {
      cwd: arm.root,
      env: { ...process.env, GATEHOUSE_LOG_LEVEL: 'error' },
      stdio: ['ignore', traceFd, 'pipe'],
    });
    closeSync(traceFd);
    const tail = stderrTail(child);
    try {
      await waitFor('gatehouse', async () => (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) })).ok, child, 30_000);
      const url = `http://127.0.0.1:${port}/mcp`;
      const headers = withPolicy ? API_KEY_HEADERS : {};
      const request: WireRequest =
        era === 'legacy'
          ? { kind: 'tools/call', era, sessionId: await openLegacySession(url, 'gatehouse-bench', headers), tool: 'everything__echo', headers }
          : { kind: 'tools/call', era, tool: 'everything__echo', headers };
      await gen.run({ url, connections, durationSec: WARMUP_SEC, request });
      const from = readFileSync(traceFile, 'utf8').length;
      const load = await gen.run({ url, connections, durationSec: seconds, request });
      const failed = runFailure(load);
      if (failed) throw new Error(`${arm.label}: ${failed}`);
      const gc = readTrace(readFileSync(traceFile, 'utf8').slice(from));
      if (gc.count === 0) throw new Error(`${arm.label}: no scavenge in ${seconds} s (${load.completed} calls): a longer run is needed`);
      const promoted = sum(gc.promotedBytes);
      process.stdout.write(
        [
          `${arm.label} (${withPolicy ? 'API key + policy + metrics + audit batch' : 'plain'}, ${era}, ${connections} connections, results padded by ${pad} bytes):`,
          `  ${load.completed} calls in ${seconds} s, ${gc.count} scavenges, ${gc.fullGcs} full collections`,
          `  promoted: ${(promoted / gc.count / 1024).toFixed(0)} KB per scavenge, ${(promoted / load.completed).toFixed(0)} bytes per call`,
          `  scavenge pause: mean ${(sum(gc.pausesMs) / gc.count).toFixed(2)} ms, max ${Math.max(...gc.pausesMs).toFixed(2)} ms`,
          '',
        ].join('\n'),
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${tail()}`);
    } finally {
      await stopProcess(child, 10_000);
    }
  }
} finally {
  await gen.close();
  upstream.close();
}

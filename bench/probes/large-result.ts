// Probe (not part of `npm run bench`, not a test): what one large tools/call result costs the
// gateway's memory. A raw modern upstream in this process answers `big` with a RESULT_MB text
// result as one JSON body; a fresh gateway process per case (its peak RSS, VmHWM, only grows)
// relays it to a client in this process: once, then CONCURRENT at once, with the audit trail
// off and on (the default digest of results). Prints the gateway's RSS before and its peak,
// the median of ROUNDS fresh gateways per case (when the garbage collector runs moves a
// single peak by tens of MB). Bounded: ROUNDS x (1 + CONCURRENT) calls per audit setting.
//   npm run build && node --import tsx bench/probes/large-result.ts [resultMb] [concurrent]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../harness/gateway-process.ts';
import { startJsonUpstream } from '../harness/json-upstream.ts';
import { buildRequest } from '../harness/mcp-wire.ts';
import { memoryStats } from '../harness/proc-stats.ts';

const RESULT_MB = Number(process.argv[2] ?? 50);
const CONCURRENT = Number(process.argv[3] ?? 4);
const ROUNDS = 3;
const TEXT_BYTES = RESULT_MB * 1024 * 1024;

/** server/discover, tools/list (one tool), and tools/call answered with the big result, precomputed. */
function startBigUpstream(): Promise<{ url: string; close(): void }> {
  const bigText = 'x'.repeat(TEXT_BYTES);
  return startJsonUpstream({ tools: [{ name: 'big', description: 'Answers with a large text', inputSchema: { type: 'object' } }], answer: () => bigText });
}

async function callBig(url: string, id: number): Promise<number> {
  const built = buildRequest({ kind: 'tools/call', era: 'modern', tool: 'up__big' }, id);
  const res = await fetch(url, { method: 'POST', headers: built.headers, body: built.body });
  const body = await res.arrayBuffer();
  if (res.status !== 200 || body.byteLength < TEXT_BYTES) throw new Error(`call ${id}: ${res.status}, ${body.byteLength} bytes`);
  return body.byteLength;
}

const upstream = await startBigUpstream();
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-large-result-'));
const pinning = { taskset: undefined };
try {
  for (const audit of [false, true]) {
    for (const n of [1, CONCURRENT]) {
      const rounds: { before: number; peak: number }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const gateway = await startGateway(pinning, dir, {
          upstreams: [{ name: 'up', url: upstream.url }],
          config: audit ? { audit: { dir: join(dir, `audit-${n}-${r}-${Date.now()}`) } } : {},
        });
        try {
          const before = memoryStats(gateway.pid).rssMb;
          await Promise.all(Array.from({ length: n }, (_, i) => callBig(gateway.url, i + 1)));
          rounds.push({ before, peak: memoryStats(gateway.pid).hwmMb });
        } finally {
          await gateway.stop();
        }
      }
      const growth = rounds.map((x) => x.peak - x.before).sort((a, b) => a - b);
      const median = growth[Math.floor(growth.length / 2)]!;
      console.log(
        `${RESULT_MB} MB result x${n}, audit ${audit ? 'on (digest)' : 'off'}: RSS before ~${rounds[0]!.before.toFixed(0)} MB, peak growth median +${median.toFixed(0)} MB (${growth.map((g) => g.toFixed(0)).join(' / ')}), ${(median / (RESULT_MB * n)).toFixed(1)}x the results`,
      );
    }
  }
} finally {
  upstream.close();
}

// Scenario 5: Gatehouse's resident memory (VmRSS) idle, then with 1,000 legacy sessions
// opened (initialize + notifications/initialized) and 100 of them holding an open GET SSE
// stream. The gateway fronts server-everything; sessions are the gateway's own (sealed ids
// plus a small local record), so this measures the gateway, not the upstream.
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacyGetStream, openLegacySession } from '../harness/legacy-session.ts';
import { memoryStats } from '../harness/proc-stats.ts';
import { startEverything } from '../harness/upstream-processes.ts';
import { stopAll, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'memory';
const SESSIONS = 1000;
const STREAMS = 100;
const OPEN_CONCURRENCY = 16;
const SETTLE_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function openSessions(url: string, n: number): Promise<string[]> {
  const ids: string[] = new Array<string>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: OPEN_CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        ids[i] = await openLegacySession(url, `bench-session-${i}`);
      }
    }),
  );
  return ids;
}

export const memory: Scenario = {
  id: ID,
  title: `gateway memory: idle, then ${SESSIONS} legacy sessions + ${STREAMS} open GET streams`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    const streams = new AbortController();
    try {
      const everything = await startEverything(ctx.pinning);
      stoppers.push(everything.stop);
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: 'everything', url: everything.url }] });
      stoppers.push(gateway.stop);
      await sleep(SETTLE_MS);
      const idle = memoryStats(gateway.pid);
      ctx.log(`  idle RSS ${idle.rssMb.toFixed(1)} MB`);

      const ids = await openSessions(gateway.url, SESSIONS);
      const afterSessions = memoryStats(gateway.pid);
      ctx.log(`  ${SESSIONS} sessions: RSS ${afterSessions.rssMb.toFixed(1)} MB`);
      await Promise.all(ids.slice(0, STREAMS).map((id) => openLegacyGetStream(gateway.url, id, streams.signal)));
      await sleep(SETTLE_MS);
      const loaded = memoryStats(gateway.pid);
      ctx.log(`  + ${STREAMS} GET streams: RSS ${loaded.rssMb.toFixed(1)} MB (peak ${loaded.hwmMb.toFixed(1)} MB)`);
      const perSessionKb = ((afterSessions.rssMb - idle.rssMb) * 1024) / SESSIONS;
      const perStreamKb = ((loaded.rssMb - afterSessions.rssMb) * 1024) / STREAMS;
      return {
        id: ID,
        title: this.title,
        rows: [
          { label: 'RSS idle', value: `${idle.rssMb.toFixed(1)} MB` },
          { label: `RSS + ${SESSIONS} sessions`, value: `${afterSessions.rssMb.toFixed(1)} MB`, note: `~${perSessionKb.toFixed(1)} KiB per session` },
          { label: `RSS + ${STREAMS} GET streams`, value: `${loaded.rssMb.toFixed(1)} MB`, note: `~${perStreamKb.toFixed(1)} KiB per stream; peak ${loaded.hwmMb.toFixed(1)} MB` },
        ],
        metrics: { idleRssMb: idle.rssMb, sessionsRssMb: afterSessions.rssMb, loadedRssMb: loaded.rssMb, loadedPeakRssMb: loaded.hwmMb },
      };
    } finally {
      streams.abort();
      await stopAll(stoppers);
    }
  },
};

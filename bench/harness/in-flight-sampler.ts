// How many requests a gateway is answering while a full-speed load runs: its
// `gatehouse_requests_in_flight` gauge, scraped every `everyMs` during one extra run of an arm,
// after the measured rounds (whose CPU per call the scrapes would otherwise inflate). It shows
// whether an arm of C connections really keeps C calls in flight at the gateway, which the
// audit's records per fdatasync depend on: on a busy machine the load generator, waiting for
// its share of a CPU, holds some of them.
import type { Arm } from './ab-rounds.ts';
import type { LoadGenerator } from './load-generator.ts';
import { runFailure } from './load-generator.ts';

export interface InFlightSample {
  mean: number;
  min: number;
  max: number;
  samples: number;
  /** Why the extra run does not count (a bad reply), as in the measured rounds. */
  failed?: string;
}

const GAUGE = /^gatehouse_requests_in_flight (\d+)$/m;
/** The first scrapes fall while the connections open. */
const SETTLE_MS = 250;

export async function sampleInFlight(gen: LoadGenerator, arm: Arm, port: number, seconds: number, everyMs = 50): Promise<InFlightSample> {
  let running = true;
  const load = gen.run({ ...arm.spec, durationSec: seconds }).finally(() => void (running = false));
  const values: number[] = [];
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  while (running) {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    const value = Number(GAUGE.exec(res?.ok ? await res.text() : '')?.[1]);
    if (running && Number.isFinite(value)) values.push(value);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  const failed = runFailure(await load);
  const stats = {
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
    samples: values.length,
  };
  return failed ? { ...stats, failed } : stats;
}

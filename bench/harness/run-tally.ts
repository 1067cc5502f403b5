// What a load run counts while it runs (latencies, good and bad replies, errors, the first
// few reasons), and the LoadResult made of it at the end. Shared by the load generators that
// time each request themselves (the undici pool's paced and closed loops, the SDK client, raw
// SSE sessions); autocannon counts its own.
import type { LoadResult } from './loadgen-worker.ts';
import { summarizeLatencies } from './statistics.ts';

/** How many reasons a result keeps: enough to see what went wrong, not a log. */
export const MAX_SAMPLES = 5;

export interface RunTally {
  latencies: number[];
  good: number;
  failures: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  failureSamples: string[];
  /** Keeps `why` among the first few reasons. */
  sample(why: string): void;
  /** A reply that failed its check. */
  fail(why: string): void;
}

export function startTally(): RunTally {
  const t: RunTally = {
    latencies: [],
    good: 0,
    failures: 0,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    failureSamples: [],
    sample(why) {
      if (t.failureSamples.length < MAX_SAMPLES) t.failureSamples.push(why);
    },
    fail(why) {
      t.failures++;
      t.sample(why);
    },
  };
  return t;
}

/** The run's result; its rate counts verified replies only. */
export function tallyResult(t: RunTally, elapsedSec: number): LoadResult {
  return {
    completed: t.latencies.length,
    failures: t.failures,
    failureSamples: t.failureSamples,
    errors: t.errors,
    timeouts: t.timeouts,
    non2xx: t.non2xx,
    elapsedSec,
    rps: t.good / elapsedSec,
    latencyMs: summarizeLatencies(Float64Array.from(t.latencies)),
  };
}

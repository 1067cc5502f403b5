// Pure statistics for the benchmark: percentiles of raw latency samples and medians across
// rounds. Latencies are kept as exact floats (ms) rather than autocannon's histogram, whose
// 1 ms resolution is too coarse for sub-millisecond gateways.

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarizeLatencies(samples: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

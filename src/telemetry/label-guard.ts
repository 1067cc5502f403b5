// Bounds the number of distinct values a Prometheus label can take. Every distinct label
// set is a separate time series held in memory here and in Prometheus; a label fed from
// client input (a tool name, a method) would otherwise let any client grow both without
// limit. Values on the allow-list always pass; other values pass until `max` distinct ones
// have been seen, and from then on new ones become "other". A value that was admitted keeps
// its own series for the life of the process, so counters never jump between series.

export const OTHER_LABEL = 'other';

export type LabelGuard = (value: string) => string;

export interface LabelGuardOptions {
  /** Distinct values admitted beyond the allow-list. 0 admits only the allow-list. */
  max: number;
  allowed?: Iterable<string>;
}

export function createLabelGuard(opts: LabelGuardOptions): LabelGuard {
  const allowed = new Set(opts.allowed ?? []);
  const admitted = new Set<string>();
  return (value) => {
    // The empty value means "not applicable" (a request with no upstream) and is free.
    if (value === '' || allowed.has(value) || admitted.has(value)) return value;
    if (admitted.size >= opts.max) return OTHER_LABEL;
    admitted.add(value);
    return value;
  };
}

// A Prometheus counter whose value is read from a cumulative source at scrape time (audit
// sink totals, catalog merges), rather than incremented where the events happen.
import { Counter, type Registry } from 'prom-client';

/** A counter read from a cumulative source at scrape time; it keeps its last value when the
 * source fails or has no figure, since a counter must not go back. */
export function cumulative(registers: Registry[], name: string, help: string, read: () => number | undefined): void {
  const counter: Counter = new Counter({
    name,
    help,
    registers,
    collect: () => {
      const total = read();
      if (total === undefined) return;
      counter.reset();
      counter.inc(total);
    },
  });
}

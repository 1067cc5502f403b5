// The per-request series (request count, durations), kept as plain numbers per label set.
// prom-client's labelled metrics re-check and re-hash their label object on every `inc` and
// `observe`, even through a `labels()` child; on the path of every request that was the
// largest item of the gateway's own code in a CPU profile. Here the caller looks a series up
// once per label set (metrics.ts keeps them by their label values, bounded by the label
// guards) and recording is an array increment.
//
// Both classes are metrics a prom-client Registry can hold: it reads `name`, `help`, `type`
// and `getForPromString()` at scrape time and writes the text format itself, so the
// exposition is the one prom-client writes for its own Counter and Histogram (the unit test
// compares the two).
import type { Registry } from 'prom-client';

type Labels = Readonly<Record<string, string>>;

interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
}

interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: ExportedValue[];
  aggregator: 'sum';
}

interface SeriesOptions {
  name: string;
  help: string;
  registers: Registry[];
}

export interface CounterSeries {
  inc(): void;
}

export interface HistogramSeries {
  observe(value: number): void;
}

class CounterCell implements CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(): void {
    this.value++;
  }
}

class HistogramCell implements HistogramSeries {
  /** Observations per bucket (not cumulative); index `bounds.length` is above the last bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(value: number): void {
    // A NaN or infinite duration is a bug upstream of here; it is left out rather than thrown
    // on the path of a request (prom-client throws).
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

abstract class SeriesMetric<Cell extends { labels: Labels }> {
  readonly aggregator = 'sum' as const;
  readonly name: string;
  readonly help: string;
  protected cells: Cell[] = [];

  constructor(opts: SeriesOptions) {
    this.name = opts.name;
    this.help = opts.help;
    for (const r of opts.registers) r.registerMetric(this as never);
  }

  protected abstract make(labels: Labels): Cell;

  /** The series of one label set; call once per label set and keep it (each call adds one). */
  series(labels: Labels): Cell {
    const cell = this.make({ ...labels });
    this.cells.push(cell);
    return cell;
  }

  reset(): void {
    this.cells = [];
  }

  get(): Promise<Exported> {
    return this.getForPromString().then((e) => ({
      ...e,
      values: e.values.map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } })),
    }));
  }

  abstract getForPromString(): Promise<Exported>;
}

export class SeriesCounter extends SeriesMetric<CounterCell> {
  readonly type = 'counter' as const;

  protected make(labels: Labels): CounterCell {
    return new CounterCell(labels);
  }

  getForPromString(): Promise<Exported> {
    const values = this.cells.map((c) => ({ labels: { ...c.labels }, value: c.value }));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }
}

export class SeriesHistogram extends SeriesMetric<HistogramCell> {
  readonly type = 'histogram' as const;
  private readonly bounds: readonly number[];

  constructor(opts: SeriesOptions & { buckets: readonly number[] }) {
    super(opts);
    this.bounds = [...opts.buckets].sort((a, b) => a - b);
  }

  protected make(labels: Labels): HistogramCell {
    return new HistogramCell(labels, this.bounds);
  }

  getForPromString(): Promise<Exported> {
    const values: ExportedValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const c of this.cells) {
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += c.counts[i]!;
        values.push({ labels: { le: this.bounds[i]! }, sharedLabels: c.labels, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: c.labels, value: c.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: c.labels, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: c.labels, value: c.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }
}

// The per-request series write exactly the exposition prom-client writes for its own Counter
// and Histogram fed the same values, label escaping and bucket edges included.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesCounter, SeriesHistogram } from '../../src/telemetry/labelled-series.ts';

const BUCKETS = [0.001, 0.01, 0.1, 1];
// On a bound, between bounds, below the first, above the last, and zero.
const VALUES = [0.001, 0.0005, 0.05, 0.1, 2.5, 0, 1, 30];
const LABEL_SETS = [{ method: 'tools/call', upstream: 'a' }, { method: 'tools/list', upstream: 'we"ird\\name\nx' }];

describe('labelled series', () => {
  it('a histogram exposes the same text as prom-client given the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const h = new SeriesHistogram({ name: 'x_seconds', help: 'Some help.', buckets: BUCKETS, registers: [ours] });
    const p = new Histogram({ name: 'x_seconds', help: 'Some help.', labelNames: ['method', 'upstream'], buckets: BUCKETS, registers: [theirs] });
    for (const labels of LABEL_SETS) {
      const s = h.series(labels);
      for (const v of VALUES) {
        s.observe(v);
        p.observe(labels, v);
      }
    }
    const text = await ours.metrics();
    expect(text).toContain('x_seconds_bucket{le="0.001",method="tools/call",upstream="a"} 3');
    expect(text).toBe(await theirs.metrics());
  });

  it('a counter exposes the same text as prom-client, series without a label included', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const c = new SeriesCounter({ name: 'y_total', help: 'Counted.', registers: [ours] });
    const p = new Counter({ name: 'y_total', help: 'Counted.', labelNames: ['method', 'server'], registers: [theirs] });
    const a = c.series({ method: 'tools/call' });
    const b = c.series({ method: 'tools/call', server: 'team-a' });
    for (let i = 0; i < 3; i++) a.inc();
    b.inc();
    p.inc({ method: 'tools/call' }, 3);
    p.inc({ method: 'tools/call', server: 'team-a' });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('y_total{method="tools/call",server="team-a"} 1');
  });

  it('a non-finite observation is left out, not thrown', async () => {
    const r = new Registry();
    const s = new SeriesHistogram({ name: 'z_seconds', help: 'h', buckets: BUCKETS, registers: [r] }).series({ method: 'm' });
    s.observe(Number.NaN);
    s.observe(Number.POSITIVE_INFINITY);
    s.observe(0.5);
    expect(await r.metrics()).toContain('z_seconds_count{method="m"} 1');
  });
});

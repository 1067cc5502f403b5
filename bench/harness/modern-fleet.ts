// Child-process entry: starts N modern-era upstreams (test/fixtures/modern-upstream.ts) in
// ONE process on 127.0.0.1, prints `{"urls":[...]}` on stdout, and serves until SIGTERM.
// argv[2] is JSON FleetOptions. The fixture records every request it receives; the
// benchmark clears those records each second so they neither grow without bound nor tax
// the upstream's GC more in later rounds than in earlier ones.
import { startModernUpstream, type ModernUpstream } from '../../test/fixtures/modern-upstream.ts';

export interface FleetOptions {
  count: number;
  toolCount: number;
  /** ttlMs the upstreams put on tools/list; undefined keeps the SDK default (ttlMs 0, private). */
  listTtlMs?: number;
}

const opts = JSON.parse(process.argv[2] ?? '{}') as FleetOptions;
const upstreams: ModernUpstream[] = [];
for (let i = 0; i < opts.count; i++) {
  upstreams.push(
    await startModernUpstream({
      name: `fleet-${i}`,
      toolCount: opts.toolCount,
      ...(opts.listTtlMs === undefined ? {} : { cacheHints: { 'tools/list': { ttlMs: opts.listTtlMs, cacheScope: 'public' } } }),
    }),
  );
}
const sweep = setInterval(() => {
  for (const u of upstreams) u.received.length = 0;
}, 1000);
process.stdout.write(`${JSON.stringify({ urls: upstreams.map((u) => u.url) })}\n`);

process.once('SIGTERM', () => {
  clearInterval(sweep);
  void Promise.all(upstreams.map((u) => u.close())).finally(() => process.exit(0));
});

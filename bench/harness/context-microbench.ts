// In-process measurements of the context-budget code (src/tool-search, src/result-shaping):
// search index build time and memory per 1,000 tools, search latency over a large catalog
// with a policy's visibility mask, the result store filled past its byte budget, and the
// cost of shaping a large result. Runs in the benchmark's own process (not pinned): the
// numbers are the code's cost, not a server's; every answer is checked.
import v8 from 'node:v8';
import vm from 'node:vm';
import { generatedCatalog, STATED_QUERIES } from '../../test/fixtures/generated-catalog.ts';
import { createResultStore } from '../../src/result-shaping/result-store.ts';
import { shapeResult } from '../../src/result-shaping/shape-result.ts';
import { buildSearchIndex, type IndexedTool, type VisibleSet } from '../../src/tool-search/search-index.ts';
import { percentile } from './statistics.ts';

v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

/** JS heap plus memory outside it (typed arrays, Buffers), after a full collection. */
function heapAfterGc(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

export function catalogTools(copies: number): IndexedTool[] {
  return generatedCatalog(copies).flatMap((s) =>
    s.tools.map((t) => {
      const name = `${s.name}__${t.name}`;
      return { name, upstream: s.name, original: t.name, item: { ...t, name } };
    }),
  );
}

export interface IndexFigures {
  tools: number;
  buildMs: number;
  /** Memory the index holds (heap and typed arrays, after GC), and what its own structures count. */
  heapBytes: number;
  structureBytes: number;
  searches: number;
  p50Ms: number;
  p99Ms: number;
}

/** Builds the index of `copies` x 2,000 tools three times (the median build counts), then
 * times `searches` searches with a mask hiding one tool in ten. */
export async function benchSearchIndex(copies: number, searches: number): Promise<IndexFigures> {
  const tools = catalogTools(copies);
  // Memory first: what one index adds, after GC, once the code that builds it is compiled
  // (a warm-up on a slice, so compiled code is not counted as index).
  for (let i = 0; i < 3; i++) (await buildSearchIndex(tools.slice(0, 300))).search('create issue', 8);
  // Three indexes held at once, the delta divided by three: one build's leftovers and the
  // collector's timing blur a single delta.
  const before = heapAfterGc();
  const held = [await buildSearchIndex(tools), await buildSearchIndex(tools), await buildSearchIndex(tools)];
  const heapBytes = (heapAfterGc() - before) / held.length;
  const index = held[0]!;
  const builds: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await buildSearchIndex(tools);
    builds.push(performance.now() - t);
  }
  const bits = new Uint8Array(tools.length).fill(1);
  for (let i = 0; i < bits.length; i += 10) bits[i] = 0;
  const mask: VisibleSet = { bits, count: bits.reduce((a, b) => a + b, 0) };
  const queries = STATED_QUERIES.map(([q]) => q.replace(/__/g, `${copies > 1 ? '1' : ''}__`));
  for (let i = 0; i < 200; i++) index.search(queries[i % queries.length]!, 8, mask);
  const samples = new Float64Array(searches);
  for (let i = 0; i < searches; i++) {
    const t = performance.now();
    const hits = index.search(queries[i % queries.length]!, 8, mask);
    samples[i] = performance.now() - t;
    if (hits.length === 0 || hits.some((h) => bits[h.doc] !== 1)) throw new Error(`search "${queries[i % queries.length]}" answered wrongly`);
  }
  samples.sort();
  builds.sort((a, b) => a - b);
  return { tools: tools.length, buildMs: builds[1]!, heapBytes, structureBytes: index.approxBytes(), searches, p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
}

export interface StoreFigures {
  offered: number;
  offeredBytes: number;
  entries: number;
  bytes: number;
  maxBytes: number;
  heapBytes: number;
  putUs: number;
}

/** Offers `count` results of `entryBytes` to a store of `maxBytes`: what stays, and its heap. */
export function benchResultStore(count: number, entryBytes: number, maxBytes: number): StoreFigures {
  const before = heapAfterGc();
  const store = createResultStore({ ttlMs: 600_000, maxBytes, maxEntryBytes: 8 * 1024 * 1024 });
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const data = Buffer.alloc(entryBytes, i % 256);
    if (store.put(`key:p${i % 7}`, { mimeType: 'text/plain', encoding: 'text', data }) === undefined) throw new Error('store refused an entry under maxEntryBytes');
  }
  const putUs = ((performance.now() - started) * 1000) / count;
  const { entries, bytes } = store.stats();
  if (bytes > maxBytes) throw new Error(`store holds ${bytes} bytes over its ${maxBytes}`);
  return { offered: count, offeredBytes: count * entryBytes, entries, bytes, maxBytes, heapBytes: heapAfterGc() - before, putUs };
}

/** Median µs to shape a text result of `bytes` down to `budget` (head), its copy kept. */
export function benchShaping(bytes: number, budget: number, runs: number): number {
  const store = createResultStore({ ttlMs: 600_000, maxBytes: 256 * 1024 * 1024, maxEntryBytes: 64 * 1024 * 1024 });
  const text = 'lorem ipsum dolor sit amet, consectetur adipiscing elit '.repeat(Math.ceil(bytes / 56)).slice(0, bytes);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const out = shapeResult({
      result: { content: [{ type: 'text', text }] },
      limits: { maxBytes: budget, strategy: 'head', structured: 'keep', maxMediaBytes: 0 },
      hasOutputSchema: false,
      keep: (part) => store.put('key:bench', part),
      notice: { tool: 'bench__big', ttlMs: 600_000, pageBytes: 65_536, maxEntryBytes: 64 * 1024 * 1024 },
    });
    times.push((performance.now() - t) * 1000);
    if (out.record?.sentBytes !== budget) throw new Error('shaping answered wrongly');
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}

// Reads a V8 .cpuprofile (from `node --cpu-prof`) and summarises where the time went: top
// functions by self time, src/ functions by inclusive time, and self time by area (a src/
// file, an npm package, a node: internal module, GC). Positions in src/*.ts are mapped back
// through the source maps dumped by source-map-dump.ts; tsx emits one-line modules, so raw
// profile positions would be meaningless there.
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface HotSpot {
  fn: string;
  location: string;
  area: string;
  ms: number;
  /** Percent of busy (non-idle) time. */
  pct: number;
}

export interface ProfileSummary {
  profileMs: number;
  busyMs: number;
  topSelf: HotSpot[];
  topSrcInclusive: HotSpot[];
  byArea: { area: string; ms: number; pct: number }[];
}

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const META_FRAMES = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

function areaOf(frame: CallFrame, location: string): string {
  if (META_FRAMES.has(frame.functionName) && frame.url === '') return frame.functionName;
  if (location.startsWith('src/')) return location.split(':')[0]!;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(location);
  if (pkg) return pkg[1]!;
  if (location.startsWith('node:')) return `node:${location.replace(/^node:(internal\/)?/, '').split(/[/:]/)[0]}`;
  return location === '(native)' ? '(native builtins)' : location.split(':')[0]!;
}

/** Only samples taken within this window count (µs on CLOCK_MONOTONIC, V8's profile clock
 * on Linux, which `process.hrtime` in another process reads too): start-up is left out. */
export interface SampleWindow {
  fromUs: number;
  toUs: number;
}

export function summarizeProfile(profileFile: string, sourceMapFile: string | undefined, window?: SampleWindow, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
  const payloads = sourceMapFile ? (JSON.parse(readFileSync(sourceMapFile, 'utf8')) as Record<string, SourceMapPayload>) : {};
  const maps = new Map<string, SourceMap>();
  const locate = (f: CallFrame): string => {
    if (f.url === '') return '(native)';
    if (f.url.startsWith('node:')) return `${f.url}:${f.lineNumber + 1}`;
    if (!f.url.startsWith('file://')) return `${f.url}:${f.lineNumber + 1}`;
    const payload = payloads[f.url];
    if (payload) {
      let map = maps.get(f.url);
      if (!map) maps.set(f.url, (map = new SourceMap(payload)));
      const entry = map.findEntry(f.lineNumber, f.columnNumber) as { originalLine?: number };
      if (entry.originalLine !== undefined) return `${relative(REPO_ROOT, fileURLToPath(f.url))}:${entry.originalLine + 1}`;
    }
    return `${relative(REPO_ROOT, fileURLToPath(f.url))}:${f.lineNumber + 1}`;
  };

  // Time per node: each sample lasts until the next one.
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  let windowUs = 0;
  for (let i = 0; i < samples.length; i++) {
    at += deltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    const dt = Math.max(0, deltas[i + 1] ?? 0);
    windowUs += dt;
    selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + dt);
  }
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const info = new Map<number, { key: string; fn: string; location: string; area: string }>();
  for (const n of profile.nodes) {
    const location = locate(n.callFrame);
    const fn = n.callFrame.functionName || '(anonymous)';
    info.set(n.id, { key: `${fn}@${location}`, fn, location, area: areaOf(n.callFrame, location) });
  }

  const self = new Map<string, HotSpot>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, HotSpot>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const i = info.get(id)!;
    totalUs += us;
    if (i.fn === '(idle)') idleUs += us;
    const s = self.get(i.key) ?? { fn: i.fn, location: i.location, area: i.area, ms: 0, pct: 0 };
    s.ms += us / 1000;
    self.set(i.key, s);
    areas.set(i.area, (areas.get(i.area) ?? 0) + us / 1000);
    // Inclusive time of src/ functions: count each distinct frame once per stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const a = info.get(at)!;
      if (!a.location.startsWith('src/') || seen.has(a.key)) continue;
      seen.add(a.key);
      const t = inclusive.get(a.key) ?? { fn: a.fn, location: a.location, area: a.area, ms: 0, pct: 0 };
      t.ms += us / 1000;
      inclusive.set(a.key, t);
    }
  }
  const busyMs = (totalUs - idleUs) / 1000;
  const ranked = (m: Map<string, HotSpot>): HotSpot[] =>
    [...m.values()]
      .filter((h) => h.fn !== '(idle)')
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((h) => ({ ...h, pct: (100 * h.ms) / busyMs }));
  return {
    profileMs: windowUs / 1000,
    busyMs,
    topSelf: ranked(self),
    topSrcInclusive: ranked(inclusive),
    byArea: [...areas.entries()]
      .filter(([a]) => a !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, ms]) => ({ area, ms, pct: (100 * ms) / busyMs })),
  };
}

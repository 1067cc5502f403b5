// The words a shaped result carries about itself: what was cut, how much, and how to read the
// rest. They go into the result's own content, because that is what a model reads; each says
// "Gatehouse" so neither a model nor a person mistakes it for the tool's output.
import { BYTES_PER_TOKEN } from './shaping-config.ts';
import { keptResultUri, pageUri } from './kept-result-uri.ts';

export interface NoticeContext {
  tool: string;
  ttlMs: number;
  pageBytes: number;
  maxEntryBytes: number;
}

const tokens = (bytes: number): string => `~${Math.ceil(bytes / BYTES_PER_TOKEN).toLocaleString('en-US')} tokens`;
const bytes = (n: number): string => `${n.toLocaleString('en-US')} bytes`;

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** Where the full copy is, or why there is none. */
function whereKept(id: string | undefined, total: number, from: number, to: number, c: NoticeContext): string {
  if (id === undefined) return `The full text (${bytes(total)}) is larger than the gateway keeps (${bytes(c.maxEntryBytes)}), so the rest cannot be read.`;
  return `The full text is kept for ${duration(c.ttlMs)} as ${keptResultUri(id)}: read the cut part with resources/read on ${pageUri(id, from, Math.min(c.pageBytes, to - from))} (next pages: raise offset by length; up to ${bytes(to)}).`;
}

export function headNotice(id: string | undefined, shown: number, total: number, c: NoticeContext): string {
  const cut = total - shown;
  return `\n\n[Gatehouse cut this text: it shows the first ${bytes(shown)} of ${bytes(total)}; ${bytes(cut)} (${tokens(cut)}) were cut. ${whereKept(id, total, shown, total, c)}]`;
}

export function middleNotice(id: string | undefined, from: number, to: number, total: number, c: NoticeContext): string {
  const cut = to - from;
  return `\n\n[Gatehouse cut ${bytes(cut)} (${tokens(cut)}) from the middle of this text: bytes ${from} to ${to} of ${bytes(total)} are missing here. ${whereKept(id, total, from, to, c)}]\n\n`;
}

export function structuredNotice(id: string | undefined, size: number, budget: number): string {
  const where = id === undefined ? 'It is too large to keep.' : `It is kept as ${keptResultUri(id)}; read it in pages with resources/read.`;
  return `[Gatehouse withheld this result's structured content: ${bytes(size)} (${tokens(size)}), over the budget of ${bytes(budget)}. ${where}]`;
}

export function refusedNotice(total: number, budget: number, ids: readonly (string | undefined)[], c: NoticeContext): string {
  const kept = ids.filter((id): id is string => id !== undefined);
  const where = kept.length === 0
    ? 'It was too large to keep.'
    : `It is kept for ${duration(c.ttlMs)}: read it in pages with resources/read on ${kept.map((id) => pageUri(id, 0, c.pageBytes)).join(', ')} (then raise offset by length).`;
  return `Gatehouse withheld the result of ${c.tool}: it is ${bytes(total)} (${tokens(total)}), over this tool's budget of ${bytes(budget)}. ${where}`;
}

export function mediaGoneNotice(label: string, size: number, limit: number): string {
  return `[Gatehouse removed ${label} of ${bytes(size)}: it is over the media limit of ${bytes(limit)} and too large to keep.]`;
}

export function mediaLinkDescription(label: string, size: number, c: NoticeContext): string {
  return `${label} of ${bytes(size)}, kept by Gatehouse for ${duration(c.ttlMs)}; read it with resources/read.`;
}

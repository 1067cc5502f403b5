// A BM25F index (the fielded form of Okapi BM25) over tool definitions: each tool is a
// document with four fields — name, title, argument names, description — weighted and
// length-normalised per field, then saturated with k1. Pure: built once from a merged tools
// list, then only read.
//
// Which documents count is decided per query by a visibility mask: a hidden tool is never
// scored, and document frequencies (how rare a word is) are counted over the visible tools
// only, so the order of results reveals nothing about tools the caller cannot see. Only the
// average field lengths, fixed at build, are shared.
//
// Ranking favours names: the name field weighs most, a query that is a tool's exact name
// (exposed or the upstream's own) wins outright, and a name that starts with the query is
// lifted; a query word also matches, at a discount, the words it is a prefix of.
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { terms } from './tokenize.ts';

export interface IndexedTool {
  name: string;
  upstream: string;
  original: string;
  item: JsonObject;
}

export interface VisibleSet {
  /** 1 where the caller may see the document. */
  bits: Uint8Array;
  count: number;
}

export interface SearchHit {
  doc: number;
  score: number;
}

const FIELDS = [
  { weight: 3.0, b: 0.3 }, // name
  { weight: 2.0, b: 0.3 }, // title
  { weight: 1.5, b: 0.5 }, // argument names
  { weight: 1.0, b: 0.75 }, // description
] as const;
const K1 = 1.2;
const PREFIX_FACTOR = 0.5;
const MIN_PREFIX = 2;
const MAX_EXPANSIONS = 64;
const EXACT_NAME_BOOST = 1000;
const NAME_PREFIX_BOOST = 20;

function fieldTexts(item: JsonObject, name: string, original: string): [string, string, string, string] {
  const schema = isJsonObject(item.inputSchema) ? item.inputSchema : {};
  const args = isJsonObject(schema.properties) ? Object.keys(schema.properties).join(' ') : '';
  const title = typeof item.title === 'string' ? item.title : isJsonObject(item.annotations) && typeof item.annotations.title === 'string' ? item.annotations.title : '';
  return [`${name} ${original === name ? '' : original}`, title, args, typeof item.description === 'string' ? item.description : ''];
}

/** A tool's four fields as index terms. */
export function toolTerms(t: IndexedTool): string[][] {
  return fieldTexts(t.item, t.name, t.original).map(terms);
}

/** Builds an index without holding the event loop for long: tools are tokenized in slices
 * of `slice`, with a turn of the event loop between slices (the postings pass is quick). */
export async function buildSearchIndex(tools: readonly IndexedTool[], slice = 500): Promise<SearchIndex> {
  const tokenized: string[][][] = [];
  for (let i = 0; i < tools.length; i += slice) {
    for (const t of tools.slice(i, i + slice)) tokenized.push(toolTerms(t));
    if (i + slice < tools.length) await new Promise<void>((r) => setImmediate(r));
  }
  return new SearchIndex(tools, tokenized);
}

export class SearchIndex {
  readonly tools: readonly IndexedTool[];
  private readonly termIds = new Map<string, number>();
  private readonly sortedTerms: string[];
  private readonly offsets: Uint32Array;
  private readonly docs: Uint32Array;
  private readonly weights: Float32Array;
  private readonly exact = new Map<string, number[]>();
  private readonly lowerNames: string[];
  private readonly lowerOriginals: string[];
  // Scratch for one query at a time (search is synchronous).
  private readonly scores: Float64Array;
  private readonly matched: Uint16Array;
  private readonly touched: Uint32Array;

  /** `tokenized`: toolTerms of each tool, when already computed (buildSearchIndex). */
  constructor(tools: readonly IndexedTool[], tokenized: readonly string[][][] = tools.map(toolTerms)) {
    this.tools = tools;
    const n = tools.length;
    const avg = FIELDS.map((_, f) => Math.max(1, tokenized.reduce((s, d) => s + d[f]!.length, 0) / Math.max(1, n)));
    // Flat (doc, term, weight) triples, then counted into per-term runs: no object per posting.
    const docOf: number[] = [];
    const termOf: number[] = [];
    const weightOf: number[] = [];
    const perTerm = new Map<number, number>();
    tokenized.forEach((fields, doc) => {
      perTerm.clear();
      fields.forEach((ts, f) => {
        const { weight, b } = FIELDS[f]!;
        const add = weight / (1 - b + (b * ts.length) / avg[f]!);
        for (const term of ts) {
          let id = this.termIds.get(term);
          if (id === undefined) {
            id = this.termIds.size;
            this.termIds.set(term, id);
          }
          perTerm.set(id, (perTerm.get(id) ?? 0) + add);
        }
      });
      for (const [id, w] of perTerm) {
        docOf.push(doc);
        termOf.push(id);
        weightOf.push(w);
      }
    });
    const termCount = this.termIds.size;
    this.offsets = new Uint32Array(termCount + 1);
    for (const id of termOf) this.offsets[id + 1]!++;
    for (let id = 0; id < termCount; id++) this.offsets[id + 1]! += this.offsets[id]!;
    this.docs = new Uint32Array(docOf.length);
    this.weights = new Float32Array(docOf.length);
    const fill = this.offsets.slice(0, termCount);
    // Triples come in doc order, so each term's run is sorted by doc.
    for (let i = 0; i < docOf.length; i++) {
      const at = fill[termOf[i]!]!++;
      this.docs[at] = docOf[i]!;
      this.weights[at] = weightOf[i]!;
    }
    this.sortedTerms = [...this.termIds.keys()].sort();
    this.lowerNames = tools.map((t) => t.name.toLowerCase());
    this.lowerOriginals = tools.map((t) => t.original.toLowerCase());
    tools.forEach((_, doc) => {
      for (const key of new Set([this.lowerNames[doc]!, this.lowerOriginals[doc]!])) {
        const list = this.exact.get(key);
        if (list) list.push(doc);
        else this.exact.set(key, [doc]);
      }
    });
    this.scores = new Float64Array(n);
    this.matched = new Uint16Array(n);
    this.touched = new Uint32Array(n);
  }

  get size(): number {
    return this.tools.length;
  }

  /** Bytes held by the index structures (postings, terms, names), for the benchmark. */
  approxBytes(): number {
    const strings = this.sortedTerms.reduce((s, t) => s + 2 * t.length + 48, 0) * 2 + this.lowerNames.reduce((s, t) => s + 4 * t.length + 96, 0);
    return this.docs.byteLength + this.weights.byteLength + this.offsets.byteLength + strings + this.scores.byteLength + this.matched.byteLength + this.touched.byteLength;
  }

  /** Term ids a query word stands for: itself, and (discounted) the words it begins. */
  private expand(word: string): [number, number][] {
    const out: [number, number][] = [];
    const own = this.termIds.get(word);
    if (own !== undefined) out.push([own, 1]);
    if (word.length < MIN_PREFIX) return out;
    let lo = 0;
    let hi = this.sortedTerms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sortedTerms[mid]! < word) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.sortedTerms.length && out.length < MAX_EXPANSIONS; i++) {
      const t = this.sortedTerms[i]!;
      if (!t.startsWith(word)) break;
      if (t !== word) out.push([this.termIds.get(t)!, (PREFIX_FACTOR * word.length) / t.length]);
    }
    return out;
  }

  search(query: string, limit: number, visible?: VisibleSet, upstream?: string): SearchHit[] {
    const n = this.tools.length;
    const isVisible = (doc: number): boolean => visible === undefined || visible.bits[doc] === 1;
    const shown = (doc: number): boolean => isVisible(doc) && (upstream === undefined || this.tools[doc]!.upstream === upstream);
    const universe = visible?.count ?? n;
    const qTerms = [...new Set(terms(query))];
    let touchedCount = 0;
    const touch = (doc: number): void => {
      if (this.matched[doc] === 0 && this.scores[doc] === 0) this.touched[touchedCount++] = doc;
    };
    qTerms.forEach((word) => {
      const seen = new Set<number>();
      for (const [id, factor] of this.expand(word)) {
        const from = this.offsets[id]!;
        const to = this.offsets[id + 1]!;
        let df = 0;
        for (let p = from; p < to; p++) if (isVisible(this.docs[p]!)) df++;
        if (df === 0) continue;
        const idf = Math.log(1 + (universe - df + 0.5) / (df + 0.5));
        for (let p = from; p < to; p++) {
          const doc = this.docs[p]!;
          if (!shown(doc)) continue;
          const w = this.weights[p]!;
          touch(doc);
          this.scores[doc]! += (factor * idf * w * (K1 + 1)) / (w + K1);
          if (!seen.has(doc)) {
            seen.add(doc);
            this.matched[doc]!++;
          }
        }
      }
    });
    const q = query.trim().toLowerCase();
    for (const doc of this.exact.get(q) ?? []) {
      if (!shown(doc)) continue;
      touch(doc);
      this.scores[doc]! += EXACT_NAME_BOOST;
    }
    const top: SearchHit[] = [];
    for (let i = 0; i < touchedCount; i++) {
      const doc = this.touched[i]!;
      let score = this.scores[doc]! * ((1 + this.matched[doc]!) / (1 + qTerms.length));
      if (q.length >= 3 && (this.lowerNames[doc]!.startsWith(q) || this.lowerOriginals[doc]!.startsWith(q))) score += NAME_PREFIX_BOOST;
      this.scores[doc] = 0;
      this.matched[doc] = 0;
      if (score <= 0 || (top.length === limit && score <= top[top.length - 1]!.score)) continue;
      let at = top.length;
      while (at > 0 && (top[at - 1]!.score < score || (top[at - 1]!.score === score && top[at - 1]!.doc > doc))) at--;
      top.splice(at, 0, { doc, score });
      if (top.length > limit) top.pop();
    }
    return top;
  }
}

// Whose answer an overlong stdout line was, from the little of it that is kept (its first
// and last bytes, line-splitter.ts). The id of a JSON-RPC response is a top-level member, and
// SDKs write it near one end: first (`{"jsonrpc":"2.0","id":7,"result":…`, the Python SDK and
// most hand-written servers) or last (`{"result":…,"jsonrpc":"2.0","id":7}`, TypeScript SDK
// 1.x). Only the gateway's own ids (integers) are looked for. Pure.
import type { OverlongLine } from './line-splitter.ts';

const ID_AT_START = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d+)\s*[,}]/;
const ID_AT_END = /[{,]\s*"id"\s*:\s*(\d+)\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

/** The id the line names at either end, if it names one there. */
export function answerIdOf(line: Pick<OverlongLine, 'head' | 'tail'>): number | undefined {
  const named = ID_AT_START.exec(line.head)?.[1] ?? ID_AT_END.exec(line.tail)?.[1];
  return named === undefined ? undefined : Number(named);
}

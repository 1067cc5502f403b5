// Which call a stdio upstream's request belongs to. stdio carries no call id with a server's
// request (MCP 2025-11-25, basic/transports: stdio is one stream both ways), so the gateway
// ties one to a call only when there is exactly one it can be: the one tools/call,
// prompts/get or resources/read in flight on that process (always so with `maxConcurrent: 1`).
// Lists, completions and probes in flight beside it do not count: they take no client input.
// Two such calls or more, or none: it is tied to nothing, and refused (-32601) as before.
import type { ClientAsk } from '../../protocol/client-ask.ts';

/** The methods during which a 2025-11-25 server asks its client for input. */
const ASKING_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

export interface InFlight {
  method: string;
  /** How the calling client is asked (absent: it cannot be). */
  ask?: ClientAsk;
}

export type Tie = { ask: ClientAsk } | { why: string };

export function tiedCall(inFlight: Iterable<InFlight>): Tie {
  let found: InFlight | undefined;
  let calls = 0;
  for (const p of inFlight) {
    if (!ASKING_METHODS.has(p.method)) continue;
    calls++;
    found = p;
  }
  if (calls === 0) return { why: 'no call is in flight on this stdio upstream' };
  if (calls > 1) return { why: `${calls} calls are in flight on this stdio upstream, and stdio does not say which one asked (maxConcurrent: 1 makes it one)` };
  return found!.ask ? { ask: found!.ask } : { why: 'the client of the call in flight cannot be asked' };
}

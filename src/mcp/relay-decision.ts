// Whether one call's result may go to the client as the upstream's own bytes
// (protocol/result-relay.ts), decided before it is sent from the config and the call alone:
// only a tools/call whose result nothing in the gateway reads. Output validation against an
// outputSchema and an overlay's output note read it (the resolver says so, `readsResult`); an
// approval step may wrap it (MRTR state); result shaping measures, redacts and pages it; an
// audit trail that records results (digest, redacted or full) needs it whole. Any of these:
// the call takes the buffered path, exactly as before. Pure.
import type { Call } from '../protocol/call.ts';
import type { ResultRelay } from '../protocol/result-relay.ts';

export interface RelayContext {
  /** Result shaping is configured (it reads every tool result). */
  shaping: boolean;
  /** The audit trail records this tool's result (by the name policy and audit see). */
  auditReadsResult(name: string): boolean;
}

export function relayFor(call: Call, target: { name: string; readsResult: boolean | undefined }, approving: boolean, ctx: RelayContext): ResultRelay | undefined {
  if (call.relay === undefined || call.method !== 'tools/call' || approving || ctx.shaping) return undefined;
  if (target.readsResult !== false || ctx.auditReadsResult(target.name)) return undefined;
  return call.relay;
}

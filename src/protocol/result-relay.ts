// A result relayed to the client as the upstream's bytes, not parsed and serialised again
// (README, Big results relayed as they come). The transport offers a ResultRelay on a call; the target
// sequence passes it on to the upstream only when nothing in the gateway reads that call's
// result (mcp/relay-decision.ts); an HTTP upstream then opens it once it knows the answer is a
// big result of the client's own era, and writes the result's bytes through it as they come,
// with the client's backpressure. The transport writes the envelope's last byte only after the
// call's audit record is written, so a result that is not recorded is never complete.
import type { Era } from './versions.ts';
import type { JsonObject } from './message.ts';

/** The client's side of a relayed result: bytes written as they come, with backpressure. */
export interface RelaySink {
  /** Writes bytes of the result; false: the client's buffer is full, wait for `onDrain`. */
  write(chunk: Buffer): boolean;
  onDrain(fn: () => void): void;
  /** Called once if the client goes away before the reply is complete. */
  onGone(fn: () => void): void;
  /** The result's bytes are all written and checked (everything but the envelope's end). */
  complete(): void;
  /** The relay broke off after bytes were sent: the reply cannot be completed. */
  fail(): void;
}

export type RelayState = 'unused' | 'open' | 'complete' | 'failed';

export interface ResultRelay {
  /** The client's era: how the result is reshaped on the way (result-relay-scanner.ts). */
  readonly era: Era;
  /** The reply is an SSE stream: the result must fit one data line (no line breaks). */
  readonly compact: boolean;
  /** What has happened to the relay; read by the transport once the call is answered. */
  readonly state: RelayState;
  /** Bytes of the reply written so far (the envelope included). */
  readonly bytes: number;
  /** Begins the client's reply; undefined when it can no longer be relayed (the reply became a
   * resumable stream, or the call was cancelled). At most once. */
  open(): RelaySink | undefined;
}

/** The value a relayed call's Reply carries: the result went to the client as bytes, and the
 * transport knows from the relay's state. Only `isError` is read of it (the outcome the audit
 * record, metrics and span give the call), so a tool's own error carries that alone. */
export const RELAYED_RESULT: JsonObject = Object.freeze({});
export const RELAYED_TOOL_ERROR: JsonObject = Object.freeze({ isError: true });

// The span status description of a failed request, from its JSON-RPC error message. The MCP
// conventions make the message the description, but the gateway's messages quote what the
// client sent where it helps the client ("header value 'x' does not match body value 'y'",
// "got 42"), and an upstream's may echo arguments too. Traces go to a third-party backend
// that must never see tool arguments (README, Traces), so quoted values and a trailing
// "got <value>" are masked; the words that say what went wrong are kept.

// Single- or double-quoted runs, backslash escapes included.
const QUOTED = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g;
// "..., got <value>" as the message's tail, where the value is not quoted.
const FOUND_TAIL = /\bgot (?!…)[^"'].*$/s;

/** A description is a summary: an upstream's message can be long, and the masking scans it. */
const MAX_DESCRIPTION = 512;

export function statusDescription(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  const text = message.length > MAX_DESCRIPTION ? `${message.slice(0, MAX_DESCRIPTION)}…` : message;
  return text.replace(QUOTED, (q) => `${q[0]}…${q[0]}`).replace(FOUND_TAIL, 'got …');
}

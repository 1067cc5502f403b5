// Where an SSE answer's first chunk is cut so that its first event reaches the client before
// the rest of the chunk is parsed (http-exchange.ts). An upstream that sends a burst (a
// thousand progress notifications, say) before the gateway gets the CPU hands it over in one
// read of up to 64 KiB, and every event parsed in one turn is written to the client only at
// the end of that turn: the client would see nothing until the last of them was relayed. The
// first event that carries data (a priming event, id and empty data, carries none) is handed
// on at once, and the rest of the chunk, with whatever else undici read in that turn, in the
// next, with undici held back meanwhile. Only a first chunk that goes on for a while after that
// event is cut: the usual answer (a priming event and the response) and a notification
// followed by the response cost no extra turn. Cutting anywhere is safe (the parser takes any
// split); this only picks where it helps. The chunks undici hands over are the HTTP/1.1 chunks
// of a chunked answer, as the upstream wrote them, so the length is of the rest of the chunk.

/** Bytes that must follow the first event in its chunk for the rest to wait a turn. */
export const FIRST_EVENT_REST_FROM = 4 * 1024;
/** Events looked at for one with data before giving up (priming events come first, if at all). */
const MAX_EVENTS_LOOKED_AT = 4;

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

/** Just past the blank line that ends the chunk's first event with data, when at least
 * FIRST_EVENT_REST_FROM bytes follow it; -1 otherwise (parse it whole). */
export function firstEventEnd(chunk: Buffer): number {
  if (chunk.length <= FIRST_EVENT_REST_FROM) return -1;
  let from = 0;
  for (let n = 0; n < MAX_EVENTS_LOOKED_AT; n++) {
    const end = blankLineEnd(chunk, from);
    if (end === -1 || chunk.length - end < FIRST_EVENT_REST_FROM) return -1;
    if (hasData(chunk, from, end)) return end;
    from = end;
  }
  return -1;
}

/** The end of the first blank line from `from` (LF LF, or CRLF CRLF); -1 when there is none. */
function blankLineEnd(chunk: Buffer, from: number): number {
  const lf = chunk.indexOf('\n\n', from);
  const crlf = chunk.indexOf('\r\n\r\n', from);
  if (lf === -1) return crlf === -1 ? -1 : crlf + 4;
  return crlf === -1 || lf < crlf ? lf + 2 : crlf + 4;
}

/** The event from `from` to `end` has a `data:` line that is not empty. */
function hasData(chunk: Buffer, from: number, end: number): boolean {
  for (let at = chunk.indexOf('data:', from); at !== -1 && at < end; at = chunk.indexOf('data:', at + 5)) {
    if (at !== from && chunk[at - 1] !== LF && chunk[at - 1] !== CR) continue;
    let i = at + 5;
    if (chunk[i] === SPACE) i++;
    if (i < end && chunk[i] !== LF && chunk[i] !== CR) return true;
  }
  return false;
}

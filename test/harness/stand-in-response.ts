// A stand-in for the ServerResponse an SseStream is attached to, for unit tests: each write()
// as it was made, whether it was ended or destroyed, and a writableLength the test sets (what
// the response would hold unsent). Nothing of HTTP is simulated.
import type { ServerResponse } from 'node:http';

export interface StandInResponse {
  res: ServerResponse;
  writes: string[];
  text(): string;
  ended(): boolean;
  destroyed(): boolean;
}

export function standInResponse(writableLength = 0): StandInResponse {
  const writes: string[] = [];
  let ended = false;
  let destroyed = false;
  const res = {
    writableLength,
    writableEnded: false,
    get destroyed() {
      return destroyed;
    },
    writeHead: () => res,
    flushHeaders: () => undefined,
    write: (c: string) => void writes.push(c),
    end: () => void (ended = true),
    destroy: () => void (destroyed = true),
    on: () => res,
    once: () => res,
    socket: {},
  } as unknown as ServerResponse;
  return { res, writes, text: () => writes.join(''), ended: () => ended, destroyed: () => destroyed };
}

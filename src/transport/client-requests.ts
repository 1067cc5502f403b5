// Requests the gateway sends to a legacy (2025-11-25) client on a call's SSE stream — its own
// approval questions and what an upstream asks mid-call (elicitation, sampling, roots), each
// under a fresh id of the gateway's — and the client's answers, which arrive as separate
// POSTs in the same session. In memory: a legacy client's answer must reach the replica that
// asked (sticky sessions), as the README's bridging notes say (Protocol eras).
import { randomUUID } from 'node:crypto';
import type { AskFailure } from '../protocol/client-ask.ts';
import type { JsonObject, JsonRpcResponse } from '../protocol/message.ts';
import { isErrorResponse } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';

interface Waiter {
  resolve(r: Result<JsonObject, AskFailure>): void;
}

export class ClientRequests {
  private readonly waiting = new Map<string, Waiter>();

  newId(): string {
    return `gatehouse-${randomUUID()}`;
  }

  /** Waits for the client's response to request `id`; times out and aborts fail closed. */
  wait(sessionId: string, id: string, timeoutMs: number, signal: AbortSignal): Promise<Result<JsonObject, AskFailure>> {
    const key = `${sessionId}\u0000${id}`;
    return new Promise((resolve) => {
      const done = (r: Result<JsonObject, AskFailure>): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(key);
        resolve(r);
      };
      if (signal.aborted) {
        resolve(err({ kind: 'unanswered', message: 'the call was cancelled while waiting for the answer' }));
        return;
      }
      const onAbort = (): void => done(err({ kind: 'unanswered', message: 'the call was cancelled while waiting for the answer' }));
      const timer = setTimeout(() => done(err({ kind: 'unanswered', message: `no answer from the client within ${Math.round(timeoutMs / 1000)} s; nothing was run` })), timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(key, { resolve: done });
    });
  }

  /** A response POSTed by the client; true when it answered one of our requests. */
  answer(sessionId: string, msg: JsonRpcResponse): boolean {
    const w = this.waiting.get(`${sessionId}\u0000${String(msg.id)}`);
    if (!w) return false;
    w.resolve(isErrorResponse(msg) ? err({ kind: 'client_error', error: msg.error }) : ok(msg.result));
    return true;
  }
}

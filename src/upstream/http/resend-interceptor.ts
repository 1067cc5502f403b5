// One more try for an idempotent request whose connection was lost before any answer
// (connection-loss.ts says when that is safe; never tools/call), within what is left of the
// first try's time: the caller was promised an answer or an error within the timeout. The
// resend carries a new JSON-RPC id, written into the caller's body so it knows which id to
// cancel (the first body was already serialized). Other methods (tools/call first) pass
// straight through, with no wrapper of their own.
import type { Logger } from '../../telemetry/logger.ts';
import { mayResend, resendable } from './connection-loss.ts';
import type { Exchange, ExchangeInterceptor, Sent } from './exchange-interceptor.ts';
import type { ExchangeInput } from './http-exchange.ts';

export function resendInterceptor(deps: { logger: Logger; nextId: () => number; closed: () => boolean }): ExchangeInterceptor {
  return (next) => (input) => (resendable(input.body.method) ? resendOnLoss(next, input) : next(input));
  async function resendOnLoss(next: Exchange, input: ExchangeInput): Promise<Sent> {
    const started = Date.now();
    const first = await next(input);
    const { method } = input.body;
    if (typeof method !== 'string' || !mayResend(method, first) || deps.closed()) return first;
    let { timeoutMs } = input;
    if (timeoutMs !== undefined) {
      timeoutMs -= Date.now() - started;
      if (timeoutMs <= 0) return { kind: 'timeout' };
    }
    deps.logger.info('upstream connection lost before an answer, sending again', { method });
    if (input.body.id !== undefined) input.body.id = deps.nextId();
    return next({ ...input, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
  }
}

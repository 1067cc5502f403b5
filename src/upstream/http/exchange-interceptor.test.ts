import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../telemetry/logger.ts';
import { composeExchange, timeoutInterceptor, type Exchange, type ExchangeInterceptor, type Sent } from './exchange-interceptor.ts';
import type { ExchangeInput } from './http-exchange.ts';
import { ResponseHeaders } from './raw-response.ts';
import { resendInterceptor } from './resend-interceptor.ts';

const input = (method: string, extra: Partial<ExchangeInput> = {}): ExchangeInput => ({ pool: undefined as never, path: '/mcp', headers: {}, body: { jsonrpc: '2.0', id: 1, method }, ...extra });
const lost: Sent = { kind: 'network_error', error: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), responded: false };
const answered: Sent = { kind: 'accepted', status: 202, headers: ResponseHeaders.EMPTY };

function scripted(outcomes: Sent[]): Exchange & { seen: ExchangeInput[] } {
  const seen: ExchangeInput[] = [];
  const f = async (i: ExchangeInput): Promise<Sent> => {
    seen.push({ ...i, body: { ...i.body } });
    return outcomes.shift() ?? answered;
  };
  return Object.assign(f, { seen });
}

describe('exchange interceptors', () => {
  it('compose outermost first, each wrapping the next', async () => {
    const order: string[] = [];
    const tag = (name: string): ExchangeInterceptor => (next) => async (i) => {
      order.push(`${name}>`);
      const r = await next(i);
      order.push(`<${name}`);
      return r;
    };
    await composeExchange([tag('a'), tag('b')], scripted([]))(input('ping'));
    expect(order).toEqual(['a>', 'b>', '<b', '<a']);
  });

  it('give a request the configured timeout unless it brings its own', async () => {
    const inner = scripted([]);
    const send = composeExchange([timeoutInterceptor(5000)], inner);
    await send(input('ping'));
    await send(input('ping', { timeoutMs: 10 }));
    expect(inner.seen.map((i) => i.timeoutMs)).toEqual([5000, 10]);
  });

  it('send a lost idempotent request once more with a new id, and never a lost tools/call', async () => {
    let id = 100;
    const inner = scripted([lost, answered, lost]);
    const send = composeExchange([timeoutInterceptor(5000), resendInterceptor({ logger: createMemoryLogger().logger, nextId: () => ++id, closed: () => false })], inner);
    expect(await send(input('tools/list'))).toEqual(answered);
    expect(inner.seen.map((i) => i.body.id)).toEqual([1, 101]);
    expect(inner.seen[1]!.timeoutMs).toBeLessThanOrEqual(5000);
    expect(await send(input('tools/call'))).toEqual(lost);
    expect(inner.seen).toHaveLength(3);
  });
});

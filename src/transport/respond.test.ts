import { describe, expect, it } from 'vitest';
import type { Gateway } from '../gateway.ts';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import type { Observation, Observer } from '../observer.ts';
import { dispatch } from './respond.ts';

const gateway: Gateway = {
  handle: async () => ({ ok: true, value: { content: [{ type: 'text', text: 'hi' }] } }),
  knows: () => true,
  capabilities: () => ({}),
  instructions: () => undefined,
};

const call = {
  era: 'modern' as const,
  id: 7,
  method: 'tools/call',
  params: { name: 'up__echo' },
  protocolVersion: '2026-07-28',
  clientCapabilities: {},
  principal: ANONYMOUS_PRINCIPAL,
  authContext: ANONYMOUS_PRINCIPAL.authContext,
  headers: () => undefined,
};

function opts(observer?: Observer) {
  const abort = new AbortController();
  let done = 0;
  const observation = { requestId: 'r1', startedAt: 0, wallMs: 0, span: {} } as unknown as Observation;
  return { o: { signal: abort.signal, abort, cancelOnDisconnect: true, onDone: () => void done++, ...(observer ? { observer, observation } : {}) }, done: () => done };
}

describe('dispatch', () => {
  it('answers with the result as JSON text', async () => {
    const { o, done } = opts();
    const reply = await dispatch(gateway, call, o);
    expect(reply).toMatchObject({ status: 200 });
    expect(JSON.parse((reply as { body: string }).body)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: expect.any(Object) } });
    expect(done()).toBe(1);
  });

  it('still answers, with a JSON-RPC internal error, when finishing the request throws', async () => {
    const broken = { finish: () => { throw new Error('observer broke'); } } as unknown as Observer;
    const { o, done } = opts(broken);
    const reply = await dispatch(gateway, call, o);
    expect(reply).toMatchObject({ status: 500 });
    expect(JSON.parse((reply as { body: string }).body)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603 } });
    expect(done()).toBe(1);
  });
});

import { Cancellation } from '../protocol/cancellation.ts';
import { describe, expect, it } from 'vitest';
import type { Gateway } from '../mcp/method-table.ts';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import { createMemoryLogger } from '../telemetry/logger.ts';
import type { Observation, Observer } from '../http/observer.ts';
import { dispatch } from './respond.ts';

const gateway: Gateway = {
  handle: async () => ({ reply: { ok: true, value: { content: [{ type: 'text', text: 'hi' }] } }, record: {} }),
  knows: () => true,
  capabilities: () => ({}),
  legacyCapabilities: () => ({}),
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
  const abort = new Cancellation();
  let done = 0;
  const { logger, lines } = createMemoryLogger();
  const observation = { requestId: 'r1', startedAt: 0, wallMs: 0, span: {} } as unknown as Observation;
  return { o: { abort, cancelOnDisconnect: true, logger, era: 'modern' as const, onDone: () => void done++, ...(observer ? { observer, observation } : {}) }, done: () => done, lines };
}

describe('dispatch', () => {
  it('answers with the result as JSON text', async () => {
    const { o, done } = opts();
    const reply = await dispatch(gateway, call, o);
    expect(reply).toMatchObject({ status: 200 });
    expect(JSON.parse((reply as { body: string }).body)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: expect.any(Object) } });
    expect(done()).toBe(1);
  });

  it('still answers, with a JSON-RPC internal error that keeps the exception to the log, when finishing the request throws', async () => {
    const broken = { finish: () => { throw new Error('observer broke at /srv/gatehouse/secret'); } } as unknown as Observer;
    const { o, done, lines } = opts(broken);
    const reply = await dispatch(gateway, call, o);
    expect(reply).toMatchObject({ status: 500 });
    const body = (reply as { body: string }).body;
    expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603 } });
    expect(body).not.toContain('observer broke');
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', requestId: 'r1', rpcId: 7, error: 'observer broke at /srv/gatehouse/secret' }));
    expect(done()).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import type { ClientAsk } from '../protocol/client-ask.ts';
import { err, ok } from '../protocol/result.ts';
import { answerServerRequest } from './server-request-answer.ts';

const req = (method: string, params = {}) => ({ jsonrpc: '2.0' as const, id: 7, method, params });

describe('answerServerRequest', () => {
  it('answers ping itself and never asks the client', async () => {
    const ask: ClientAsk = () => Promise.reject(new Error('must not be asked'));
    expect(await answerServerRequest(req('ping'), ask, 1000)).toEqual({ id: 7, result: {} });
  });

  it('relays a client method with the upstream params and returns the answer under the upstream id', async () => {
    const seen: unknown[] = [];
    const ask: ClientAsk = async (method, params, timeoutMs) => {
      seen.push([method, params, timeoutMs]);
      return ok({ roots: [] });
    };
    expect(await answerServerRequest(req('roots/list', { _meta: { k: 1 } }), ask, 1234)).toEqual({ id: 7, result: { roots: [] } });
    expect(seen).toEqual([['roots/list', { _meta: { k: 1 } }, 1234]]);
  });

  it('refuses at once what nobody can answer: no caller, an unknown method', async () => {
    expect(await answerServerRequest(req('sampling/createMessage'), undefined, 1000)).toMatchObject({ id: 7, error: { code: -32601 } });
    const ask: ClientAsk = () => Promise.reject(new Error('must not be asked'));
    expect(await answerServerRequest(req('tasks/get'), ask, 1000)).toMatchObject({ id: 7, error: { code: -32601, message: expect.stringContaining('tasks/get') } });
  });

  it('maps the failures: the client\'s own error as it came, undeclared -32601, unanswered -32603', async () => {
    const clientError: ClientAsk = async () => err({ kind: 'client_error', error: { code: -1, message: 'no', data: { why: 'user' } } });
    expect(await answerServerRequest(req('elicitation/create'), clientError, 1000)).toEqual({ id: 7, error: { code: -1, message: 'no', data: { why: 'user' } } });
    const undeclared: ClientAsk = async () => err({ kind: 'undeclared', message: 'not declared' });
    expect(await answerServerRequest(req('elicitation/create'), undeclared, 1000)).toMatchObject({ error: { code: -32601 } });
    const unanswered: ClientAsk = async () => err({ kind: 'unanswered', message: 'timed out' });
    expect(await answerServerRequest(req('elicitation/create'), unanswered, 1000)).toMatchObject({ error: { code: -32603, message: 'Gatehouse: timed out' } });
  });
});

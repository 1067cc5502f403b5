import { describe, expect, it } from 'vitest';
import type { ClientAsk } from '../../protocol/client-ask.ts';
import { ok } from '../../protocol/result.ts';
import { tiedCall } from './tied-call.ts';

const ask: ClientAsk = async () => ok({});

describe('tiedCall', () => {
  it('ties a request to the one call in flight, whatever lists run beside it', () => {
    expect(tiedCall([{ method: 'tools/list' }, { method: 'tools/call', ask }, { method: 'initialize' }])).toEqual({ ask });
    expect(tiedCall([{ method: 'resources/read', ask }])).toEqual({ ask });
  });

  it('ties it to nothing when no call, or more than one, is in flight, saying why', () => {
    expect(tiedCall([{ method: 'prompts/list' }])).toEqual({ why: expect.stringMatching(/no call is in flight/) });
    expect(tiedCall([{ method: 'tools/call', ask }, { method: 'prompts/get', ask }])).toEqual({ why: expect.stringMatching(/2 calls are in flight.*maxConcurrent: 1/) });
  });

  it('ties it to nothing when the one call in flight has no client that can be asked', () => {
    expect(tiedCall([{ method: 'tools/call' }])).toEqual({ why: expect.stringMatching(/cannot be asked/) });
  });
});

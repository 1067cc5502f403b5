import { describe, expect, it } from 'vitest';
import { testCall } from '../../test/fixtures/calls.ts';
import type { ResultRelay } from '../protocol/result-relay.ts';
import { relayFor, type RelayContext } from './relay-decision.ts';

const relay: ResultRelay = { era: 'modern', compact: false, state: 'unused', bytes: 0, open: () => undefined };
const call = testCall({ relay });
const plain: RelayContext = { shaping: false, auditReadsResult: () => false };
const tool = { name: 'up__big', readsResult: false };

describe('relayFor', () => {
  it('offers the relay for a tools/call whose result nothing reads', () => {
    expect(relayFor(call, tool, false, plain)).toBe(relay);
  });

  it('keeps the result buffered for whatever reads it', () => {
    expect(relayFor(testCall(), tool, false, plain)).toBeUndefined(); // the transport offered none
    expect(relayFor(testCall({ relay, method: 'resources/read' }), tool, false, plain)).toBeUndefined();
    expect(relayFor(call, { ...tool, readsResult: true }, false, plain)).toBeUndefined(); // output validation, an output note
    expect(relayFor(call, { ...tool, readsResult: undefined }, false, plain)).toBeUndefined(); // a resolver that does not say
    expect(relayFor(call, tool, true, plain)).toBeUndefined(); // an approval
    expect(relayFor(call, tool, false, { ...plain, shaping: true })).toBeUndefined();
    expect(relayFor(call, tool, false, { ...plain, auditReadsResult: (name) => name === 'up__big' })).toBeUndefined();
    expect(relayFor(call, tool, false, { ...plain, auditReadsResult: (name) => name === 'other' })).toBe(relay);
  });
});

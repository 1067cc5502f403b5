// A resource can be addressed under more than one spelling: its listed uri, and the gateway's
// gatehouse://<upstream>/<uri> form (in any %-escaping and scheme case), which routes to that
// upstream's own uri. Policy must judge every spelling as the uri the list shows, or a deny
// rule written for `mem://modern/*` is walked around by reading
// gatehouse://up/mem%3A%2F%2Fmodern%2Fonly. Reads and completions, end to end.
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, legacySession, usePolicyBed, type PolicyBed } from '../harness/policy-env.ts';

const POLICY = `
rules:
  - id: everyone-everything
    effect: allow
    when: { upstream: "*" }
  - id: guests-not-modern
    effect: deny
    when: { principal: [{ groups: [guests] }], resource: "mem://modern/*" }
`;

const ALIASES = [
  `gatehouse://up/${encodeURIComponent('mem://modern/only')}`,
  'gatehouse://up/mem%3a%2f%2fmodern%2fonly',
  'GATEHOUSE://%75p/mem%3A%2F%2Fmodern%2Fonly',
];

let bed: PolicyBed;
let gw: TestGateway;

usePolicyBed(POLICY, (b) => {
  bed = b;
  gw = b.gw;
});

const upstreamReads = (): number => bed.sent('resources/read');
const upstreamCompletions = (): number => bed.sent('completion/complete');

describe('resources/read through a gatehouse:// alias', () => {
  it('hides a denied resource under every spelling, with the error of a missing one, and never reads it', async () => {
    const bob = await legacySession(gw.url, BOB);
    const before = upstreamReads();
    for (const uri of ALIASES) {
      const r = await bob('resources/read', { uri });
      expect(r.json.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri } });
    }
    expect(upstreamReads()).toBe(before);
  });

  it('still serves the alias to a caller the policy allows, under the uri it asked for', async () => {
    const alice = await legacySession(gw.url, ALICE);
    const uri = ALIASES[0]!;
    const r = await alice('resources/read', { uri });
    expect(r.json.result.contents).toEqual([{ uri, mimeType: 'text/plain', text: 'only on the modern upstream' }]);
  });
});

describe('completion/complete on a gatehouse:// alias of a hidden template', () => {
  const alias = `gatehouse://up/${encodeURIComponent('mem://modern/items/{id}')}`;

  it('answers as for a missing resource and never asks the upstream', async () => {
    const bob = await legacySession(gw.url, BOB);
    const before = upstreamCompletions();
    const r = await bob('completion/complete', { ref: { type: 'ref/resource', uri: alias }, argument: { name: 'id', value: '1' } });
    expect(r.json.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri: alias } });
    expect(upstreamCompletions()).toBe(before);
  });

  it('completes it for a caller the policy allows', async () => {
    const alice = await legacySession(gw.url, ALICE);
    const r = await alice('completion/complete', { ref: { type: 'ref/resource', uri: alias }, argument: { name: 'id', value: '1' } });
    expect(r.json.result.completion.values).toEqual(['1', '10']);
  });
});

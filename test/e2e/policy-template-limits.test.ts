// Resources read through a template count as the template. A rate limit on templated reads
// is one bucket for every uri the template matches (a client cannot make up fresh uris to
// get fresh buckets), and a template a caller may not see hides every uri it matches, not
// only its entry in resources/templates/list.
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, legacySession, usePolicyBed, type PolicyBed } from '../harness/policy-env.ts';

const POLICY = `
rules:
  - id: everyone-everything
    effect: allow
    when: { upstream: "*" }
  - id: items-budget
    effect: allow
    when: { resource: "mem://modern/items/*" }
    rateLimit: { capacity: 2, perMinute: 2, per: tool }
  - id: guests-no-items
    effect: deny
    when: { principal: [{ groups: [guests] }], resource: "mem://modern/items/{id}" }
`;

let bed: PolicyBed;
usePolicyBed(POLICY, (b) => {
  bed = b;
});

describe('a rate limit on templated resources', () => {
  it('keys on the template: of 10 distinct uris under a limit of 2, 2 are read and 8 refused', async () => {
    const alice = await legacySession(bed.gw.url, ALICE);
    const before = bed.sent('resources/read');
    const replies = [];
    for (let i = 0; i < 10; i++) replies.push(await alice('resources/read', { uri: `mem://modern/items/${100 + i}` }));
    expect(replies.filter((r) => r.json.result !== undefined).map((r) => r.json.result.contents[0].text)).toEqual(['modern item 100', 'modern item 101']);
    const refused = replies.filter((r) => r.json.error !== undefined);
    expect(refused).toHaveLength(8);
    for (const r of refused) expect(r.json.error).toMatchObject({ code: -31029, data: { rule: 'items-budget' } });
    expect(bed.sent('resources/read') - before).toBe(2);
  });
});

describe('a template the caller may not see', () => {
  it('is left out of the guest\'s template list', async () => {
    const bob = await legacySession(bed.gw.url, BOB);
    const r = await bob('resources/templates/list', {});
    expect(r.json.result.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate)).not.toContain('mem://modern/items/{id}');
  });

  it('hides every uri it matches, as a missing resource, without asking the upstream', async () => {
    const bob = await legacySession(bed.gw.url, BOB);
    const before = bed.sent('resources/read');
    for (const uri of ['mem://modern/items/1', 'MEM://modern/./items/7']) {
      const r = await bob('resources/read', { uri });
      expect(r.json.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri } });
    }
    expect(bed.sent('resources/read')).toBe(before);
  });
});

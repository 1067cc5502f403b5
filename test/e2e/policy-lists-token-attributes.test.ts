// A JWT principal's list is filtered by what its current token says, not by what an earlier
// token of the same subject said. Two tokens for one `sub` can carry different groups, scopes
// or claims (a role granted for an hour, then revoked; a scope-reduced token), and policy
// rules match on exactly those. Lists used to be cached per subject only, so the second token
// was shown the first token's tools (docs/architecture.md §5: denied tools are absent from lists).
import { describe, expect, it } from 'vitest';
import { type TestGateway } from '../harness/gateway.ts';
import { modernCall, modernList, policyDir, toolNames } from '../harness/policy-env.ts';
import { signToken, type SigningKey } from '../identity/jwt-fixtures.ts';
import { jwtIdentityYaml, useJwtBed } from '../harness/jwt-bed.ts';

const RESOURCE = 'http://gatehouse.test/mcp';
const POLICY = `
rules:
  - id: everyone-echo
    effect: allow
    when: { tool: up__echo }
  - id: admins-add
    effect: allow
    when: { principal: [{ groups: [admins] }], tool: up__add }
  - id: writers-query
    effect: allow
    when: { principal: [{ scopes: [tools:write] }], tool: up__query }
  - id: tier-gold-slow
    effect: allow
    when: { principal: [{ claims: { tier: gold } }], tool: up__slow }
`;

let key: SigningKey;
let gw: TestGateway;

useJwtBed((up) => `
${jwtIdentityYaml(RESOURCE, up)}
policy: { dir: "${policyDir({ '10-rules.yaml': POLICY })}", watch: false }
upstreams:
  - { name: up, url: "${up.upstream.url}" }
`, (bed) => ({ key, gw } = bed));

async function bearer(claims: Record<string, unknown>): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000);
  return { authorization: `Bearer ${await signToken(key, { aud: RESOURCE, iat: now, exp: now + 300, sub: 'alice', ...claims })}` };
}

describe('lists of one subject follow the token presented', () => {
  it('shows a token without the admin group none of the tools a previous admin token of the same subject saw', async () => {
    const elevated = await bearer({ groups: ['admins'], scope: 'tools:write', tier: 'gold' });
    expect(toolNames(await modernList(gw.url, elevated))).toEqual(['up__echo', 'up__add', 'up__slow', 'up__query']);
    const plain = await bearer({ groups: [] });
    expect(toolNames(await modernList(gw.url, plain))).toEqual(['up__echo']);
    // What the list shows is what a call may do.
    expect((await modernCall(gw.url, plain, 'up__add', { a: 1, b: 2 })).json.error).toMatchObject({ code: -32602, message: 'Unknown tool: up__add' });
  });

  it('follows each attribute a rule matches on: groups, scopes and claims', async () => {
    expect(toolNames(await modernList(gw.url, await bearer({ groups: ['admins'] })))).toEqual(['up__echo', 'up__add']);
    expect(toolNames(await modernList(gw.url, await bearer({ scope: 'tools:write' })))).toEqual(['up__echo', 'up__query']);
    expect(toolNames(await modernList(gw.url, await bearer({ tier: 'gold' })))).toEqual(['up__echo', 'up__slow']);
    expect(toolNames(await modernList(gw.url, await bearer({ tier: 'silver' })))).toEqual(['up__echo']);
  });
});

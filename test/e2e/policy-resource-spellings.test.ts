// Resource deny rules hold whatever spelling the client uses. The upstream is the official
// 2.x SDK, which looks resources up through WHATWG `new URL()`: it serves `MEM://modern/./only`,
// `mem://modern:/only` or ` mem://modern/only` as mem://modern/only. The gateway judges one
// canonical form (RFC 3986 §6), refuses whitespace and control characters, and sends nothing
// upstream that no list or template accounts for: a guest denied the listed document and one
// templated document reads neither under any of these spellings, and the upstream never even
// receives the read; a caller the policy allows reads them under every spelling it accepts.
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, legacySession, usePolicyBed, type PolicyBed } from '../harness/policy-env.ts';

const POLICY = `
rules:
  - id: everyone-everything
    effect: allow
    when: { upstream: "*" }
  - id: guests-not-these
    effect: deny
    when: { principal: [{ groups: [guests] }], resource: ["mem://modern/only", "mem://modern/items/2"] }
`;

/** Spellings of `uri` (mem://modern/<path>) that WHATWG reads as that uri, or that differ
 * from it only by whitespace, wrapped in the gateway's own gatehouse:// form or not. */
function spellings(path: string): string[] {
  const [first, ...rest] = path.split('/');
  const tail = rest.length === 0 ? '' : `/${rest.join('/')}`;
  const plain = [
    `MEM://modern/${path}`,
    `Mem://modern/${path}`,
    `mem://modern/./${path}`,
    `mem://modern/x/../${path}`,
    `mem://modern/../${path}`,
    `mem://modern:/${path}`,
    `mem://modern/%2e/${path}`,
    `mem://modern/x/%2E%2E/${path}`,
    `mem://modern/${first!.replace(/^./, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}${tail}`,
    ` mem://modern/${path}`,
    `mem://modern/${path} `,
    `mem://modern/${path}\t`,
    `\nmem://modern/${path}`,
  ];
  const wrapped = [`MEM://modern/./${path}`, `mem://modern:/${path}`, ` mem://modern/${path}`, `mem://modern/x/../${path}`, `mem://modern/${path}`].map(
    (inner) => `gatehouse://up/${encodeURIComponent(inner)}`,
  );
  return [...plain, ...wrapped, `GATEHOUSE://up/${encodeURIComponent(`Mem://modern/./${path}`).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}`];
}

const DOCS = [
  { path: 'only', text: 'only on the modern upstream' },
  { path: 'items/2', text: 'modern item 2' },
];
const SPELLINGS = DOCS.flatMap((d) => spellings(d.path).map((uri) => ({ uri, ...d })));
const hasWhitespace = (uri: string): boolean => /\s/.test(decodeURIComponent(uri.replace(/^gatehouse:\/\/up\//i, '')));

let bed: PolicyBed;
usePolicyBed(POLICY, (b) => {
  bed = b;
});

/** What the upstream was asked to read, in its own terms. */
const readsUpstream = (): string[] =>
  bed.upstream.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'resources/read').map((r) => (r.body as { params: { uri: string } }).params.uri);

describe('a denied resource under every spelling', () => {
  it('has 38 spellings to try', () => {
    expect(SPELLINGS.length).toBe(38);
  });

  it('is never read for the guest: refused as invalid, or not found, and never sent upstream', async () => {
    const bob = await legacySession(bed.gw.url, BOB);
    const before = readsUpstream().length;
    for (const { uri } of SPELLINGS) {
      const r = await bob('resources/read', { uri });
      expect(r.json.result, JSON.stringify(uri)).toBeUndefined();
      if (hasWhitespace(uri)) {
        expect(r.json.error, JSON.stringify(uri)).toEqual({ code: -32602, message: 'Invalid resource uri: the uri contains whitespace or a control character' });
      } else {
        expect(r.json.error, JSON.stringify(uri)).toEqual({ code: -32602, message: 'Resource not found', data: { uri } });
      }
    }
    expect(readsUpstream().length).toBe(before);
  });

  it('is read for a caller the policy allows, under every spelling it accepts, and sent upstream canonical', async () => {
    const alice = await legacySession(bed.gw.url, ALICE);
    const before = readsUpstream().length;
    let served = 0;
    for (const { uri, path, text } of SPELLINGS) {
      const r = await alice('resources/read', { uri });
      if (hasWhitespace(uri)) {
        expect(r.json.error?.message, JSON.stringify(uri)).toMatch(/^Invalid resource uri/);
        continue;
      }
      expect(r.json.result?.contents, JSON.stringify(uri)).toEqual([{ uri, mimeType: 'text/plain', text }]);
      expect(readsUpstream().at(-1)).toBe(`mem://modern/${path}`);
      served++;
    }
    expect(served).toBe(SPELLINGS.filter((s) => !hasWhitespace(s.uri)).length);
    expect(readsUpstream().length - before).toBe(served);
  });

  it('leaves an allowed neighbour readable for the guest under a respelling', async () => {
    const bob = await legacySession(bed.gw.url, BOB);
    const r = await bob('resources/read', { uri: 'MEM://modern/items/../items/1' });
    expect(r.json.result.contents[0].text).toBe('modern item 1');
  });

  it('does not forward an unlisted uri that no template matches', async () => {
    const alice = await legacySession(bed.gw.url, ALICE);
    const before = readsUpstream().length;
    const r = await alice('resources/read', { uri: 'mem://modern/items/1/../../elsewhere' });
    expect(r.json.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri: 'mem://modern/items/1/../../elsewhere' } });
    expect(readsUpstream().length).toBe(before);
  });
});

// Result shaping end to end (README, Context budget): a real SDK 2.x upstream returning large
// results of every content kind, three upstream entries over it with different rules (head,
// head+tail, refuse), real SDK clients of both eras. Each content kind is cut or linked as
// configured and says so; the full result is read back in pages through resources/read by
// the same principal only; it expires on the gateway's (injected) clock; secrets are
// redacted with the audit patterns; the audit record says what shaping did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { bulkyBytes, bulkyRows, bulkyText, startBulkyUpstream, type BulkyUpstream } from '../fixtures/bulky-upstream.ts';
import { auditRequests, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML } from '../harness/policy-env.ts';

const TTL_MS = 60_000;
let clock = Date.now();
let upstream: BulkyUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startBulkyUpstream();
  gw = await startTestGateway(`
${IDENTITY_YAML}
resultShaping:
  maxResultBytes: 2KiB
  maxMediaBytes: 4KiB
  redact: true
  keep: { ttl: ${TTL_MS}ms, pageBytes: 1KiB }
  rules:
    - { upstream: mid, strategy: head+tail }
    - { upstream: strict, strategy: refuse }
    - { tool: "bulk__loose", maxResultTokens: 100 }
    - { tool: "mid__structured", structured: refuse }
upstreams:
  - { name: bulk, url: "${upstream.url}" }
  - { name: mid, url: "${upstream.url}" }
  - { name: strict, url: "${upstream.url}" }
`, process.env, { now: () => clock });
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

type Block = { type: string; text?: string; uri?: string; mimeType?: string; size?: number; name?: string };
interface Client {
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<{ content: Block[]; structuredContent?: unknown; isError?: boolean }>;
  readResource(p: { uri: string }): Promise<{ contents: { uri: string; text?: string; blob?: string }[]; _meta?: Record<string, any> }>;
  close(): Promise<void>;
}
const CLIENTS: { era: string; connect: (headers: Record<string, string>) => Promise<Client> }[] = [
  { era: 'modern (2.x)', connect: (headers) => connectModernClient(gw.url, { headers }) as unknown as Promise<Client> },
  { era: 'legacy (1.x)', connect: (headers) => connectLegacyClient(gw.url, { headers }) as unknown as Promise<Client> },
];

/** The first page of a kept text: 1 KiB, back to a character boundary. */
const firstPage = (text: string): string => {
  const buf = Buffer.from(text);
  let end = 1024;
  while ((buf[end]! & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
};
const URI = /gatehouse:\/\/results\/[A-Za-z0-9_-]{22}/;
const keptUri = (text: string): string => URI.exec(text)![0];

/** Reads a kept text result from `offset` to its end, page by page, following `next`. */
async function readAll(client: Client, uri: string, offset = 0): Promise<string> {
  let next: string | undefined = `${uri}?offset=${offset}`;
  let out = '';
  for (let pages = 0; next && pages < 100; pages++) {
    const page = await client.readResource({ uri: next });
    out += page.contents[0]!.text;
    next = page._meta?.['io.gatehouse/page']?.next;
  }
  return out;
}

describe.each(CLIENTS)('$era client', ({ connect }) => {
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([connect(ALICE), connect(BOB)]);
  });
  afterAll(async () => {
    await Promise.all([alice?.close(), bob?.close()]);
  });

  it('cuts text to its head, says how much and where, and pages the rest back from the kept copy', async () => {
    const full = bulkyText(10_000);
    const r = await alice.callTool({ name: 'bulk__text', arguments: { bytes: 10_000 } });
    const text = r.content[0]!.text!;
    const shown = text.slice(0, text.indexOf('\n\n[Gatehouse cut'));
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(2048);
    expect(full.startsWith(shown)).toBe(true);
    expect(text).toMatch(new RegExp(`it shows the first ${Buffer.byteLength(shown).toLocaleString('en-US')} bytes of ${Buffer.byteLength(full).toLocaleString('en-US')} bytes`));
    const rest = await readAll(alice, keptUri(text), Buffer.byteLength(shown));
    expect(shown + rest).toBe(full);
  });

  it('keeps head and tail with head+tail, naming the missing range', async () => {
    const full = bulkyText(10_000);
    const text = (await alice.callTool({ name: 'mid__text', arguments: { bytes: 10_000 } })).content[0]!.text!;
    const [, from, to] = /bytes (\d+) to (\d+) of 10,000 bytes are missing/.exec(text)!;
    const buf = Buffer.from(full);
    expect(text.startsWith(buf.toString('utf8', 0, Number(from)))).toBe(true);
    expect(text.endsWith(buf.toString('utf8', Number(to)))).toBe(true);
    const middle = await alice.readResource({ uri: `${keptUri(text)}?offset=${from}&length=${Number(to) - Number(from)}` });
    expect(middle.contents[0]!.text).toBe(buf.toString('utf8', Number(from), Number(to)));
  });

  it('refuses an over-budget result with refuse, pointing at the kept copy', async () => {
    const r = await alice.callTool({ name: 'strict__text', arguments: { bytes: 5000 } });
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/withheld the result of strict__text: it is 5,000 bytes .* budget of 2,048 bytes/);
    expect(await readAll(alice, keptUri(r.content[0]!.text!))).toBe(bulkyText(5000));
  });

  it('keeps structured content with an outputSchema whole, or refuses it, but never cuts it', async () => {
    const rows = bulkyRows(200);
    const kept = await alice.callTool({ name: 'bulk__structured', arguments: { rows: 200 } });
    expect(kept.structuredContent).toEqual(rows);
    expect(kept.content[0]!.text).toContain('[Gatehouse cut this text');
    const refused = await alice.callTool({ name: 'mid__structured', arguments: { rows: 200 } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toBeUndefined();
  });

  it('withholds structured content without an outputSchema that does not fit, and keeps it', async () => {
    const r = await alice.callTool({ name: 'bulk__loose', arguments: { rows: 50 } });
    expect(r.structuredContent).toBeUndefined();
    expect(r.content[0]!.text).toBe('50 rows');
    expect(JSON.parse(await readAll(alice, keptUri(r.content[1]!.text!)))).toEqual(bulkyRows(50));
  });

  it.each([
    ['image', 'bulk__image', 'image/png', 1],
    ['audio', 'bulk__audio', 'audio/wav', 0],
  ])('replaces a large %s with a resource link to its bytes', async (_kind, tool, mimeType, at) => {
    const r = await alice.callTool({ name: tool, arguments: { bytes: 6000 } });
    const link = r.content[at]!;
    expect(link).toMatchObject({ type: 'resource_link', mimeType, size: 6000 });
    const read = await alice.readResource({ uri: link.uri! });
    expect(read.contents[0]!.blob).toBe(bulkyBytes(6000).toString('base64'));
  });

  it('replaces a large embedded resource with a link, and leaves small media alone', async () => {
    const r = await alice.callTool({ name: 'bulk__embedded', arguments: { bytes: 5000 } });
    expect(r.content[0]).toMatchObject({ type: 'resource_link', mimeType: 'text/plain', size: 5000 });
    expect(await readAll(alice, r.content[0]!.uri!)).toBe(bulkyText(5000));
    const small = await alice.callTool({ name: 'bulk__image', arguments: { bytes: 100 } });
    expect(small.content[1]).toMatchObject({ type: 'image', data: bulkyBytes(100).toString('base64') });
  });

  it('redacts secrets in results with the audit trail\'s patterns', async () => {
    const r = await alice.callTool({ name: 'bulk__secret' });
    expect(r.content[0]!.text).toBe('deploy key: Authorization: Bearer [REDACTED], card [REDACTED], ok');
  });

  it('gives another principal "Resource not found" for a kept result, exactly as for one that never was', async () => {
    const text = (await alice.callTool({ name: 'bulk__text', arguments: { bytes: 4000 } })).content[0]!.text!;
    const uri = keptUri(text);
    await expect(bob.readResource({ uri })).rejects.toThrow(/Resource not found/);
    expect((await alice.readResource({ uri })).contents[0]!.text).toBe(firstPage(bulkyText(4000)));
  });
});

describe('kept results over raw 2026-07-28 requests', () => {
  const read = (id: string, uri: string, who: Record<string, string>) => postJson(gw.url, modernBody(id, 'resources/read', { uri }), modernHeaders('resources/read', uri, who));
  const call = (id: string, bytes: number) => postJson(gw.url, modernBody(id, 'tools/call', { name: 'bulk__text', arguments: { bytes } }), modernHeaders('tools/call', 'bulk__text', ALICE));

  it('answers a foreign and a made-up id identically, and an expired one the same once its ttl has passed', async () => {
    const r = await call('raw-1', 3000);
    const uri = keptUri(r.json.result.content[0].text);
    const foreign = await read('x', uri, BOB);
    const madeUp = await read('x', 'gatehouse://results/AAAAAAAAAAAAAAAAAAAAAA', BOB);
    expect(foreign.status).toBe(madeUp.status);
    expect(foreign.json.error).toEqual({ ...madeUp.json.error, data: { uri } });
    expect((await read('y', uri, ALICE)).json.result.contents[0].text).toBe(firstPage(bulkyText(3000)));
    clock += TTL_MS + 1;
    const expired = await read('z', uri, ALICE);
    expect(expired.json.error).toEqual({ ...madeUp.json.error, data: { uri } });
  });

  it('records what shaping did in the audit record', async () => {
    await call('raw-audit', 9000);
    await expect.poll(() => auditRequests(gw).find((rec) => rec.rpcId === 'raw-audit')).toBeDefined();
    const rec = auditRequests(gw).find((x) => x.rpcId === 'raw-audit')!;
    expect(rec.shaping).toMatchObject({ bytes: 9000, sentBytes: expect.any(Number), cutBytes: expect.any(Number), kept: [expect.stringMatching(/^[A-Za-z0-9_-]{22}$/)] });
    expect(rec.shaping.sentBytes + rec.shaping.cutBytes).toBe(9000);
    await postJson(gw.url, modernBody('raw-secret', 'tools/call', { name: 'bulk__secret' }), modernHeaders('tools/call', 'bulk__secret', ALICE));
    await expect.poll(() => auditRequests(gw).find((x) => x.rpcId === 'raw-secret')?.shaping).toMatchObject({ redacted: 1 });
  });
});

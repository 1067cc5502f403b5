// An upstream whose tool schema changed under the gateway's cached list (MCP 2026-07-28,
// custom headers from tool parameters): the tool's argument became an `x-mcp-header`
// parameter and nobody said so, so the gateway's call carries no Mcp-Param-* header and the
// upstream (the real SDK 2.x server) refuses it with -32020. The gateway lists that upstream's
// tools again and sends the call once more with the header its new schema asks for; the client
// sees its answer and no error, and from then on the gateway lists and checks the new header.
import { beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream, type ReceivedRequest } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { useOneUpstreamBed } from '../harness/gateway-bed.ts';

let up: ModernUpstream;
let gw: TestGateway;

// A long, public list ttl: only the refusal can explain a second tools/list.
useOneUpstreamBed('up', () => startModernUpstream({ tagTool: true, cacheHints: { 'tools/list': { ttlMs: 600_000, cacheScope: 'public' } } }), (bed) => ({ upstream: up, gw } = bed));

const method = (r: ReceivedRequest): unknown => (r.body as { method?: unknown } | undefined)?.method;
const calls = (label: string): ReceivedRequest[] => up.received.filter((r) => method(r) === 'tools/call' && (r.body as { params?: { arguments?: { label?: unknown } } }).params?.arguments?.label === label);
const lists = (): number => up.received.filter((r) => method(r) === 'tools/list').length;

async function callTag(id: number, label: string): Promise<{ status: number; json: any }> {
  return postJson(gw.url, modernBody(id, 'tools/call', { name: 'up__tag', arguments: { label } }), modernHeaders('tools/call', 'up__tag'));
}

describe('an upstream that starts asking for an Mcp-Param-* header its listed schema did not have', () => {
  beforeAll(async () => {
    // The list is cached before the schema changes.
    const first = await callTag(1, 'before');
    expect(first.json.result.content).toEqual([{ type: 'text', text: 'tag:before' }]);
    expect(calls('before')[0]!.headers['mcp-param-label']).toBeUndefined();
    up.setTagHeader(true);
  });

  it('lists the tools again and resends the call with the header: the client gets its answer', async () => {
    const listedBefore = lists();
    const res = await callTag(2, 'after');
    expect(res.status).toBe(200);
    expect(res.json.error).toBeUndefined();
    expect(res.json.result.content).toEqual([{ type: 'text', text: 'tag:after' }]);
    // Two sends: the first without the header (refused), the second with it.
    const sent = calls('after');
    expect(sent.map((r) => r.headers['mcp-param-label'])).toEqual([undefined, 'after']);
    expect(lists()).toBe(listedBefore + 1);
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream rejected Mcp-* headers; refreshing its tools and retrying once', upstream: 'up', tool: 'tag' }));
  });

  it('from then on lists the new header parameter, holds 2026-07-28 clients to it, and sends it at once', async () => {
    const listedBefore = lists();
    const listed = await postJson(gw.url, modernBody(3, 'tools/list'), modernHeaders('tools/list'));
    const tag = listed.json.result.tools.find((t: { name: string }) => t.name === 'up__tag');
    expect(tag.inputSchema.properties.label['x-mcp-header']).toBe('Label');
    // A client that does not mirror it is refused by the gateway itself, before any upstream.
    const bare = await callTag(4, 'unmirrored');
    expect(bare.status).toBe(400);
    expect(bare.json.error.code).toBe(-32020);
    expect(calls('unmirrored')).toEqual([]);
    const res = await postJson(gw.url, modernBody(5, 'tools/call', { name: 'up__tag', arguments: { label: 'later' } }), modernHeaders('tools/call', 'up__tag', { 'mcp-param-label': 'later' }));
    expect(res.json.result.content).toEqual([{ type: 'text', text: 'tag:later' }]);
    expect(calls('later').map((r) => r.headers['mcp-param-label'])).toEqual(['later']);
    expect(lists()).toBe(listedBefore);
  });
});

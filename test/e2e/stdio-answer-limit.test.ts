// A stdio upstream's answers are bounded like an HTTP upstream's (limits.maxUpstreamAnswerBytes):
// a line over the limit fails the call it answers, naming the upstream, and the gateway
// reads on; a long stderr line is cut for the log. Real child processes (a raw stdio server
// that answers with a line of any length), the limit set low so that the lines stay small.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernBody, modernHeaders, postJson, REPO_ROOT, startTestGateway, type TestGateway } from '../harness/gateway.ts';

const LIMIT = 64 * 1024;
const SERVER = join(REPO_ROOT, 'test/fixtures/scripted-stdio-server.mjs');

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway(`
limits: { maxUpstreamAnswerBytes: ${LIMIT} }
upstreams:
  - { name: big, command: node, args: ["${SERVER}"], env: { STDERR_BYTES: "100000" } }
  - { name: tail, command: node, args: ["${SERVER}"], env: { ANSWER_ID: end } }
  - { name: anon, command: node, args: ["${SERVER}"], env: { ANSWER_ID: none } }
`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
});

let nextId = 1;
const call = (tool: string, args: Record<string, unknown>) =>
  postJson(gw.url, modernBody(nextId++, 'tools/call', { name: tool, arguments: args }), modernHeaders('tools/call', tool));

async function limitHits(): Promise<number> {
  const text = await (await fetch(new URL('/metrics', gw.url))).text();
  const m = /^gatehouse_limit_hits_total\{limit="maxUpstreamAnswerBytes"\} (\d+)$/m.exec(text);
  return Number(m?.[1] ?? Number.NaN);
}

describe('a stdio answer over limits.maxUpstreamAnswerBytes', () => {
  it('fails that call with an error naming the upstream and the limit; the next call is answered', async () => {
    const before = await limitHits();
    // A text of LIMIT bytes: the line around it is a little over the limit.
    const over = await call('big__huge', { bytes: LIMIT });
    expect(over.status).toBe(200);
    expect(over.json.error).toMatchObject({ code: -31001, data: { upstream: 'big' } });
    expect(over.json.error.message).toBe(`Upstream "big" is unavailable: the answer exceeds the ${LIMIT}-byte limit (limits.maxUpstreamAnswerBytes)`);
    const after = await call('big__echo', { text: 'still here' });
    expect(after.json.result.content).toEqual([{ type: 'text', text: 'still here' }]);
    expect(await limitHits()).toBe(before + 1);
    expect(gw.upstreams.find((u) => u.name === 'big')!.status().state).toBe('up');
  });

  it('passes an answer of just under the limit whole', async () => {
    const res = await call('big__huge', { bytes: LIMIT - 1000 });
    expect(res.json.result.content[0].text).toHaveLength(LIMIT - 1000);
  });

  it('finds the call by an id written last, as SDK 1.x writes it', async () => {
    const res = await call('tail__huge', { bytes: LIMIT * 4 });
    expect(res.json.error.message).toMatch(/^Upstream "tail" is unavailable: the answer exceeds/);
    expect((await call('tail__echo', { text: 'ok' })).json.result.content[0].text).toBe('ok');
  });

  it('fails the waiting call when the line names no id at either end', async () => {
    const res = await call('anon__huge', { bytes: LIMIT * 2 });
    expect(res.json.error.message).toMatch(/^Upstream "anon" is unavailable: the answer exceeds/);
    expect((await call('anon__echo', { text: 'ok' })).json.result.content[0].text).toBe('ok');
  });

  it('logs that it dropped the answer, with the size and how the line began', () => {
    const warning = gw.logs.find((l) => l.msg === 'upstream answer too large, dropped' && l.upstream === 'big');
    expect(warning).toMatchObject({ limit: LIMIT, failedCalls: 1 });
    expect(String(warning!.start)).toMatch(/^\{"jsonrpc":"2.0","id":\d+,"result"/);
  });
});

describe('a long stderr line of a stdio upstream', () => {
  it('is logged cut to its first bytes, marked as truncated, with its length', () => {
    const line = gw.logs.find((l) => l.msg === 'upstream stderr' && l.upstream === 'big');
    expect(line).toMatchObject({ truncated: true, bytes: 100_000 });
    expect(String(line!.line).length).toBeLessThanOrEqual(2000);
  });
});

// A relayed big result from an upstream that answers badly (README, Big results relayed as they come): refused
// before a byte reached the client, it is a clean JSON-RPC error; refused after, the client's
// connection is closed mid-body (it cannot mistake what it got for a result); either way the
// call leaves an audit record. And calls whose result the gateway must read are still checked.
// A scripted upstream on 127.0.0.1 writes its JSON bodies by hand, in parts.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { auditRequests, modernBody, modernHeaders, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { defaultResult, startScriptedServer, type ScriptedRequest } from '../upstream/scripted-server.ts';

const FILLER = 'x'.repeat(200_000);
const ANSWER_LIMIT = 1_000_000;
const DEPTH_LIMIT = 20;
const TASKS = 'io.modelcontextprotocol/tasks';
const TASK = '"taskId":"up-task-1","status":"working","createdAt":"2026-12-01T00:00:00Z","lastUpdatedAt":"2026-12-01T00:00:00Z","ttlMs":60000,"pollIntervalMs":50';

/** The parts each tool's answer is written in; the request's id is spliced in. */
const ANSWERS: Record<string, (id: unknown) => string[]> = {
  // Invalid JSON (a raw control character) well after the result began.
  broken: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${FILLER}`, `${FILLER}\u0001"}]}}`],
  // The id twice, before the result: nothing has been relayed yet.
  twoIdsFirst: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${FILLER}"}]}}`],
  // The id again after the result: another request's id the client would not see.
  twoIdsLast: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${FILLER}"}]},`, `"id":99999}`],
  // Over limits.maxUpstreamAnswerBytes, in parts.
  huge: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`, ...Array.from({ length: 8 }, () => FILLER), '"}]}}'],
  // Nested deeper than limits.maxJsonDepth, after a big first member.
  deep: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${FILLER}"}],"x":${'['.repeat(DEPTH_LIMIT + 5)}${']'.repeat(DEPTH_LIMIT + 5)}}}`],
  // A task (to a client that did not declare the extension), resultType first or last, and a question.
  taskFirst: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"resultType":"task",${TASK},"statusMessage":"${FILLER}"}}`],
  taskLast: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{${TASK},"statusMessage":"${FILLER}",`, `"resultType":"task"}}`],
  askFirst: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"resultType":"input_required","requestState":"s1","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"${FILLER}","requestedSchema":{"type":"object","properties":{}}}}}}}`],
  // A task-only tool whose big task names its resultType last: the gateway must read it to give its own id.
  job: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{${TASK},"statusMessage":"${FILLER}",`, `"resultType":"task"}}`],
  // Structured content that does not match the tool's outputSchema.
  invalidOutput: (id) => [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${FILLER}"}],"structuredContent":{"count":"not a number"}}}`],
};

function writeParts(res: ServerResponse, parts: string[]): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const next = (i: number): void => {
    if (i === parts.length) return void res.end();
    res.write(parts[i], () => setImmediate(() => next(i + 1)));
  };
  next(0);
}

let gw: TestGateway;

useGatewayBed({
  upstream: () =>
    startScriptedServer({
      discoverResult: { supportedVersions: ['2026-07-28'], capabilities: { tools: {}, extensions: { [TASKS]: {} } }, serverInfo: { name: 'hostile', version: '1' } },
      script: (r: ScriptedRequest, res) => {
        if (r.method === 'tools/list') {
          return {
            resultType: 'complete',
            tools: Object.keys(ANSWERS).map((name) => ({ name, inputSchema: { type: 'object' }, ...(name === 'invalidOutput' ? { outputSchema: { type: 'object', properties: { count: { type: 'number' } } } } : {}), ...(name === 'job' ? { execution: { taskSupport: 'required' } } : {}) })),
          };
        }
        const name = (r.body.params as { name?: string } | undefined)?.name ?? '';
        const answer = r.method === 'tools/call' ? ANSWERS[name] : undefined;
        if (answer === undefined) return defaultResult(r);
        writeParts(res, answer(r.id));
        return undefined;
      },
    }),
  config: (up) => `
upstreams:
  - { name: up, url: "${up.url}" }
limits: { maxUpstreamAnswerBytes: ${ANSWER_LIMIT}, maxJsonDepth: ${DEPTH_LIMIT} }
validation: { outputs: block }
audit:
  record: { results: none }
`,
  ready: (bed) => ({ gw } = bed),
});

async function call(id: string, name: string, caps?: Record<string, unknown>): Promise<Response> {
  return fetch(gw.url, { method: 'POST', headers: modernHeaders('tools/call', `up__${name}`), body: JSON.stringify(modernBody(id, 'tools/call', { name: `up__${name}`, arguments: {} }, caps)) });
}

const recordOf = (id: string): Record<string, any> | undefined => auditRequests(gw).find((r) => r.rpcId === id);

describe('a relayed result the upstream gets wrong', () => {
  it('breaks off: invalid JSON after bytes were sent closes the client connection, and is audited', async () => {
    const res = await call('broken-1', 'broken');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    await expect(res.arrayBuffer()).rejects.toThrow();
    await expect.poll(() => recordOf('broken-1')).toMatchObject({ outcome: 'error', relayed: true, upstream: 'up', name: 'up__broken' });
    expect(recordOf('broken-1')!.responseBytes).toBeGreaterThan(FILLER.length);
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'relayed result broke off; closing the client connection', rpcId: 'broken-1' }));
  });

  it('refuses a duplicate top-level id before the result with a clean error', async () => {
    const res = await call('dup-first', 'twoIdsFirst');
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'dup-first', error: { message: expect.stringContaining('duplicate top-level "id"') } });
    await expect.poll(() => recordOf('dup-first')).toMatchObject({ outcome: 'error' });
    expect(recordOf('dup-first')!.relayed).toBeUndefined();
  });

  it('refuses a duplicate top-level id after the result by closing the connection', async () => {
    const res = await call('dup-last', 'twoIdsLast');
    await expect(res.arrayBuffer()).rejects.toThrow();
    await expect.poll(() => recordOf('dup-last')).toMatchObject({ outcome: 'error', relayed: true });
  });

  it('stops at limits.maxUpstreamAnswerBytes, counting the limit, and closes the connection', async () => {
    const res = await call('huge-1', 'huge');
    await expect(res.arrayBuffer()).rejects.toThrow();
    await expect.poll(() => recordOf('huge-1')).toMatchObject({ outcome: 'error', relayed: true });
    expect(recordOf('huge-1')!.responseBytes).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream answer too large, dropped', limit: ANSWER_LIMIT }));
  });

  it('stops past limits.maxJsonDepth and records it as too deep', async () => {
    const res = await call('deep-1', 'deep');
    await expect(res.arrayBuffer()).rejects.toThrow();
    await expect.poll(() => recordOf('deep-1')).toMatchObject({ outcome: 'error', relayed: true, errorCode: -31001 });
  });
});

describe('a big answer that is not a complete result', () => {
  it('a task to a client that did not declare tasks, resultType first: not relayed, refused with a clean error', async () => {
    const res = await call('task-first', 'taskFirst');
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'task-first', error: { message: 'Upstream "up" answered with a task, which this client did not declare support for' } });
    expect(JSON.stringify(body)).not.toContain('up-task-1');
    await expect.poll(() => recordOf('task-first')).toMatchObject({ outcome: 'error' });
    expect(recordOf('task-first')!.relayed).toBeUndefined();
  });

  it('the same with resultType after the content: the relay breaks off, the client never gets a task', async () => {
    const res = await call('task-last', 'taskLast');
    await expect(res.arrayBuffer()).rejects.toThrow();
    await expect.poll(() => recordOf('task-last')).toMatchObject({ outcome: 'error', relayed: true });
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'relayed result broke off; closing the client connection', rpcId: 'task-last' }));
  });

  it('a question (input_required) is read, not relayed, and reaches the 2026-07-28 client whole', async () => {
    const res = await call('ask-first', 'askFirst');
    expect(res.headers.get('content-length')).not.toBeNull();
    const body = await res.json();
    expect(body.result).toMatchObject({ resultType: 'input_required', requestState: 's1', inputRequests: { q: { method: 'elicitation/create' } } });
    expect(body.result.inputRequests.q.params.message).toHaveLength(FILLER.length);
    await expect.poll(() => recordOf('ask-first')).toBeDefined();
    expect(recordOf('ask-first')!.relayed).toBeUndefined();
  });

  it('a task the client asked for is read whole and handed over under the gateway\'s own id, even with resultType last', async () => {
    const res = await call('job-1', 'job', { extensions: { [TASKS]: {} } });
    const body = await res.json();
    expect(body.result).toMatchObject({ resultType: 'task', status: 'working', statusMessage: FILLER });
    expect(body.result.taskId).toMatch(/^gt1\./);
    await expect.poll(() => recordOf('job-1')).toMatchObject({ outcome: 'ok', task: { id: body.result.taskId, status: 'working' } });
    expect(recordOf('job-1')!.relayed).toBeUndefined();
  });
});

describe('a big result under an outputSchema', () => {
  it('is read and checked: an invalid one is withheld', async () => {
    const res = await call('invalid-1', 'invalidOutput');
    expect(res.headers.get('content-length')).not.toBeNull();
    const body = await res.json();
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toMatch(/did not match its declared outputSchema/);
    await expect.poll(() => recordOf('invalid-1')).toMatchObject({ outcome: 'tool_error' });
    expect(recordOf('invalid-1')!.relayed).toBeUndefined();
  });
});

// Large upstream answers against a real Node server on 127.0.0.1: an SSE event of tens of MB
// arriving in many chunks is read in linear time (the parser never rescans what it has
// seen), and an answer over limits.maxUpstreamAnswerBytes (64 MiB by default) fails its
// call cleanly, naming the upstream, without taking the upstream down.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { mapError } from '../../src/protocol/errors.ts';
import type { HttpUpstream } from '../../src/upstream/http/http-upstream.ts';
import { MAX_EVENT_LENGTH } from '../../src/upstream/http/sse-reader.ts';
import type { UpstreamRequest } from '../../src/upstream/upstream.ts';
import { closeAfterEachTest, httpUpstreamAt } from './http-upstream-at.ts';
import { defaultResult, SSE_HEADERS, startScriptedServer, type ScriptedServer } from './scripted-server.ts';

const CHUNK = 64 * 1024;

let server: ScriptedServer | undefined;
let upstream: HttpUpstream | undefined;

closeAfterEachTest();

const connect = (url: string, maxAnswerBytes?: number): HttpUpstream => httpUpstreamAt(url, 'files', 10_000, maxAnswerBytes);

function read(uri: string): UpstreamRequest {
  return { method: 'resources/read', params: { uri }, clientCapabilities: {} };
}

/** Writes `text` in CHUNK-sized writes, each after the last one drained; stops if the client goes. */
async function writeInChunks(res: ServerResponse, text: string): Promise<void> {
  for (let i = 0; i < text.length && !res.destroyed; i += CHUNK) {
    if (!res.write(text.slice(i, i + CHUNK))) await new Promise((r) => (res.once('drain', r), res.once('close', r)));
  }
  res.end();
}

/** resources/read answers `size` characters of text in one SSE event, or one JSON body. */
async function serveText(size: number): Promise<ScriptedServer> {
  return startScriptedServer({
    script: (r, res) => {
      if (r.method !== 'resources/read') return defaultResult(r);
      const uri = (r.body.params as { uri: string }).uri;
      const message = JSON.stringify({ jsonrpc: '2.0', id: r.id, result: { contents: [{ uri, text: 'x'.repeat(size) }] } });
      if (uri === 'json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        void writeInChunks(res, message);
      } else {
        res.writeHead(200, SSE_HEADERS);
        void writeInChunks(res, `id: 1\ndata: \n\nevent: message\ndata: ${message}\n\n`);
      }
      return undefined;
    },
  });
}

describe('a large answer over SSE', () => {
  it('arrives whole from many chunks', async () => {
    const size = 32 * 1024 * 1024;
    server = await serveText(size);
    upstream = connect(server.url);
    await upstream.start();
    const res = await upstream.request(read('file:///big'));
    expect(res.ok).toBe(true);
    const contents = (res.ok ? res.value.contents : []) as { uri: string; text: string }[];
    expect(contents).toHaveLength(1);
    expect(contents[0]!.uri).toBe('file:///big');
    expect(contents[0]!.text.length).toBe(size);
    expect(/^x+$/.test(contents[0]!.text)).toBe(true);
  });
});

describe('an answer over the limit', () => {
  it.each([
    ['one SSE event', 'file:///huge'],
    ['a JSON body', 'json'],
  ])('fails the call as %s, naming the upstream, and leaves the upstream up', async (_what, uri) => {
    server = await serveText(MAX_EVENT_LENGTH + 1024);
    upstream = connect(server.url);
    await upstream.start();
    const res = await upstream.request(read(uri));
    expect(res).toEqual({ ok: false, error: { kind: 'upstream_unavailable', upstream: 'files', reason: 'the answer exceeds the 67108864-byte limit (limits.maxUpstreamAnswerBytes)' } });
    if (!res.ok) expect(mapError(res.error).error.message).toBe('Upstream "files" is unavailable: the answer exceeds the 67108864-byte limit (limits.maxUpstreamAnswerBytes)');
    expect(upstream.status().state).toBe('up');
    expect(await upstream.request({ method: 'tools/call', params: { name: 'echo', arguments: { message: 'after' } }, clientCapabilities: {} })).toEqual({
      ok: true,
      value: { content: [{ type: 'text', text: 'Echo: after' }] },
    });
  });
});

describe('limits.maxUpstreamAnswerBytes', () => {
  it.each([
    ['one SSE event', 'file:///huge'],
    ['a JSON body', 'json'],
  ])('bounds %s at the configured size, not only at the default', async (_what, uri) => {
    server = await serveText(2 * 1024 * 1024);
    upstream = connect(server.url, 1024 * 1024);
    await upstream.start();
    expect(await upstream.request(read(uri))).toEqual({
      ok: false,
      error: { kind: 'upstream_unavailable', upstream: 'files', reason: 'the answer exceeds the 1048576-byte limit (limits.maxUpstreamAnswerBytes)' },
    });
  });
});

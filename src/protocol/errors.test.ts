import { describe, expect, it } from 'vitest';
import { mapError } from './errors.ts';

const upstreamError = (code: number, status?: number) => ({ kind: 'upstream_error' as const, upstream: 'up', error: { code, message: 'from upstream' }, ...(status === undefined ? {} : { status }) });

describe("an upstream's JSON-RPC error toward the client", () => {
  it("keeps the upstream's HTTP error status for a 2026-07-28 client", () => {
    expect(mapError(upstreamError(-32021, 400), true).status).toBe(400);
    expect(mapError(upstreamError(-32603, 503), true).status).toBe(503);
  });

  it('derives the status 2026-07-28 gives the code when the upstream said none (stdio, an SSE stream)', () => {
    expect(mapError(upstreamError(-32021), true).status).toBe(400);
    expect(mapError(upstreamError(-32020), true).status).toBe(400);
    expect(mapError(upstreamError(-32022), true).status).toBe(400);
    expect(mapError(upstreamError(-32601), true).status).toBe(404);
    expect(mapError(upstreamError(-32602, 200), true).status).toBe(200);
  });

  it('is 200 for a 2025-11-25 client, for whom a 404 means its session is gone', () => {
    expect(mapError(upstreamError(-32601, 404), false).status).toBe(200);
    expect(mapError(upstreamError(-32021, 400), false).status).toBe(200);
  });

  it('answers an unknown method with 404 in 2026-07-28 and 200 inside a 2025-11-25 session', () => {
    expect(mapError({ kind: 'method_not_found', method: 'x' }, true).status).toBe(404);
    expect(mapError({ kind: 'method_not_found', method: 'x' }, false).status).toBe(200);
  });
});

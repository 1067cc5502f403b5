// Single requests, built and checked exactly as the load generator does (mcp-wire.ts), for
// finding out what a server speaks before loading it, and for one-off timings.
import { buildRequest, checkReply, type WireRequest } from './mcp-wire.ts';

export type ProbeResult = { ok: true; ms: number; bytes: number } | { ok: false; ms: number; why: string };

let nextProbeId = 1_000_000_000;

/** Sends `request` once (headers with an empty value, e.g. no session, are left out). */
export async function probe(url: string, request: WireRequest, timeoutMs = 10_000): Promise<ProbeResult> {
  const id = nextProbeId++;
  const built = buildRequest(request, id);
  const headers = Object.fromEntries(Object.entries(built.headers).filter(([, v]) => v !== ''));
  const started = performance.now();
  try {
    const res = await fetch(url, { method: 'POST', headers, body: built.body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    const ms = performance.now() - started;
    const why = checkReply(request, id, res.status, text);
    return why ? { ok: false, ms, why } : { ok: true, ms, bytes: Buffer.byteLength(text) };
  } catch (e) {
    return { ok: false, ms: performance.now() - started, why: (e as Error).message };
  }
}

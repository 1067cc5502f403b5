// The two kinds of HTTP exchange per-user authorization makes with authorization servers and
// metadata hosts: a GET of a JSON document and a POST of a form (RFC 6749 sections 4.1.3, 6)
// or of JSON (RFC 7591). Bounded in time and size; failures are values in words, never a
// secret, a host or a system error (callers log which server it was). The dispatcher is passed in (one small agent for all of them, apart from the
// upstream pools, so these rare requests never queue behind tool calls).
import type { Dispatcher } from 'undici';
import { err, ok, type Result } from '../protocol/result.ts';
import { readBoundedText, shown } from '../upstream/http/server-text.ts';

/** Metadata documents and token answers are a few KB; anything beyond is not one. */
const MAX_BODY_BYTES = 256 * 1024;

export interface HttpAnswer {
  status: number;
  /** Parsed JSON body; undefined when the body was not JSON. */
  json: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface OAuthHttp {
  getJson(url: string): Promise<Result<HttpAnswer, string>>;
  post(url: string, body: { form: URLSearchParams } | { json: unknown }, headers?: Record<string, string>): Promise<Result<HttpAnswer, string>>;
}

export function createOAuthHttp(dispatcher: Dispatcher, timeoutMs: number): OAuthHttp {
  const send = async (url: string, method: 'GET' | 'POST', headers: Record<string, string>, body?: string): Promise<Result<HttpAnswer, string>> => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return err(`not a URL: ${shown(url)}`);
    }
    try {
      const res = await dispatcher.request({
        origin: target.origin,
        path: target.pathname + target.search,
        method,
        headers: { accept: 'application/json', ...headers },
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await readBoundedText(res.body, MAX_BODY_BYTES);
      if (text === undefined) return err(`the server answered with more than ${MAX_BODY_BYTES} bytes`);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return ok({ status: res.statusCode, json, headers: res.headers });
    } catch (e) {
      // Words only: these reasons reach clients, which are told neither hosts nor system errors.
      return err(`cannot reach the server: ${(e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'the connection failed'}`);
    }
  };
  return {
    getJson: (url) => send(url, 'GET', {}),
    post: (url, body, headers = {}) =>
      'form' in body
        ? send(url, 'POST', { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body.form.toString())
        : send(url, 'POST', { 'content-type': 'application/json', ...headers }, JSON.stringify(body.json)),
  };
}

export function jsonObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

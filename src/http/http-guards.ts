// Checks every request passes before any JSON is parsed (MCP 2026-07-28, basic/transports/streamable-http):
// Origin (403, DNS-rebinding defence), header count and size (431); the body's size (413) is
// checked as it is read (http-io.ts).
import type { GatewayError } from '../protocol/errors.ts';
import { err, ok, type Result } from '../protocol/result.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A browser-sent Origin must be a loopback origin or one the config lists. Same-host is NOT
 * enough: a DNS-rebinding page has Origin and Host both naming the attacker's domain.
 */
export function checkOrigin(origin: string | undefined, allowed: readonly string[]): Result<void, GatewayError> {
  if (origin === undefined) return ok(undefined);
  if (allowed.includes('*') || allowed.includes(origin)) return ok(undefined);
  try {
    const u = new URL(origin);
    if ((u.protocol === 'http:' || u.protocol === 'https:') && LOOPBACK_HOSTS.has(u.hostname)) return ok(undefined);
  } catch {
    // An unparseable Origin (including "null") is foreign.
  }
  return err({ kind: 'forbidden_origin', origin: origin.slice(0, 200) });
}

/** `raw` is Node's flat name/value list, so every header line counts, repeats included. */
export function checkHeaderLimits(raw: readonly string[], maxCount: number, maxBytes: number): Result<void, GatewayError> {
  const count = raw.length / 2;
  let bytes = 0;
  for (let i = 0; i < raw.length; i++) bytes += raw[i]!.length;
  bytes += count * 4;
  if (count > maxCount) return err({ kind: 'headers_too_large', message: `Too many request headers: ${count} > ${maxCount}` });
  if (bytes > maxBytes) return err({ kind: 'headers_too_large', message: `Request headers too large: ${bytes} > ${maxBytes} bytes` });
  return ok(undefined);
}

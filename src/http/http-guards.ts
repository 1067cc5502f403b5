// Checks every request passes before any JSON is parsed (MCP 2026-07-28, basic/transports/streamable-http):
// headers that must come once (400), Origin and Host (403, DNS-rebinding defence), header
// count and size (431); the body's size (413) is checked as it is read (http-io.ts).
import { isIP } from 'node:net';
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
  if (count > maxCount) return err({ kind: 'headers_too_large', message: `Too many request headers: ${count} > ${maxCount} (limits.maxHeaderCount)`, limit: 'maxHeaderCount' });
  if (bytes > maxBytes) return err({ kind: 'headers_too_large', message: `Request headers too large: ${bytes} > ${maxBytes} bytes (limits.maxHeaderBytes)`, limit: 'maxHeaderBytes' });
  return ok(undefined);
}

export interface HostRule {
  /** Lower-cased `name` (any port) or `name:port` entries; '*' allows any. */
  allowed: readonly string[];
  /** Whether a Host that is neither loopback nor allowed is refused. Off when nothing was
   * configured for a listener that is not on loopback: its callers use names we cannot know. */
  enforce: boolean;
  /** Whether a Host that is an IP address passes (the operator routes: a Prometheus scrape or a
   * kubelet probe reaches a pod by its IP, which no allowedHosts list can know in advance). */
  ipLiterals?: boolean;
}

/** The Host rule of a listener bound to `listenHost`: enforced on loopback, or once hosts are listed. */
export function hostRule(listenHost: string, allowed: readonly string[]): HostRule {
  return { allowed, enforce: allowed.length > 0 || isLoopbackName(listenHost.toLowerCase()) };
}

/**
 * A page on attacker.example whose name was re-pointed at 127.0.0.1 (DNS rebinding) is
 * same-origin with the gateway, so its GETs carry no Origin at all; their Host still names
 * the attacker's domain. Loopback names always pass, as do the configured ones, and IP
 * addresses where the rule says so.
 */
export function checkHost(host: string | undefined, rule: HostRule): Result<void, GatewayError> {
  if (!rule.enforce || rule.allowed.includes('*')) return ok(undefined);
  const value = (host ?? '').trim().toLowerCase();
  const name = hostName(value);
  if (name !== '' && (isLoopbackName(name) || rule.allowed.includes(value) || rule.allowed.includes(name))) return ok(undefined);
  // A rebinding page is reached by a domain name, and that name is what its requests carry as
  // Host; a Host that is an address is a client that dialled the address itself.
  if (rule.ipLiterals === true && isIP(name.startsWith('[') ? name.slice(1, -1) : name) !== 0) return ok(undefined);
  return err({ kind: 'forbidden_host', host: value.slice(0, 200) });
}

/** `name` of `name:port` or `[v6]:port`. */
function hostName(value: string): string {
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end === -1 ? '' : value.slice(0, end + 1);
  }
  const colon = value.lastIndexOf(':');
  return colon !== -1 && /^[0-9]*$/.test(value.slice(colon + 1)) ? value.slice(0, colon) : value;
}

function isLoopbackName(name: string): boolean {
  return LOOPBACK_HOSTS.has(name) || name === '::1' || /^127(\.[0-9]{1,3}){3}$/.test(name);
}

/**
 * Headers a request may carry once. Node keeps only the first of a repeated Authorization,
 * Host or Content-Type and joins the others with ", ", so two of them mean whatever the
 * reader picks: a proxy in front may have checked the other one (RFC 9110 section 5.3: only
 * list-valued fields may repeat). Credentials, the target host and content type, the Origin
 * checked against DNS rebinding, and the MCP headers that route and check a request
 * (MCP 2026-07-28, basic/transports/streamable-http, request headers) are each one value.
 */
const SINGLETON_HEADERS = [
  'authorization', 'x-api-key', 'host', 'content-type', 'origin',
  'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name',
];
/** Each singleton's bit: what a request carried is one integer, not a Set per request. */
const SINGLETON_BIT: ReadonlyMap<string, number> = new Map(SINGLETON_HEADERS.map((name, i) => [name, 1 << i]));
const PARAM_HEADER_PREFIX = 'mcp-param-';

/** `raw` is Node's flat name/value list, as received: repeats are still there. */
export function checkSingletonHeaders(raw: readonly string[]): Result<void, GatewayError> {
  let seen = 0;
  let params: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const bit = SINGLETON_BIT.get(name);
    if (bit !== undefined) {
      if ((seen & bit) !== 0) return repeated(raw[i]!);
      seen |= bit;
    } else if (name.startsWith(PARAM_HEADER_PREFIX)) {
      params ??= new Set();
      if (params.has(name)) return repeated(raw[i]!);
      params.add(name);
    }
  }
  return ok(undefined);
}

function repeated(name: string): Result<void, GatewayError> {
  return err({ kind: 'invalid_request', message: `the ${name.slice(0, 64)} header must appear once` });
}

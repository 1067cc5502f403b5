// The checks a JSON Schema cannot express: relations between upstreams, and values that
// only exist after ${ENV} interpolation. Runs on the normalized config so that defaults
// (prefix = name) are already applied. Messages never echo interpolated values, which may
// be secrets.

import { toPointer } from './config-error.ts';
import type { GatewayConfig, HttpUpstreamConfig, StdioUpstreamConfig } from './types.ts';
import { checkUpstreamCredentials, credentialPointer } from './upstream-credentials-config.ts';
import { checkServers } from '../servers/servers-config.ts';
import type { Overlay } from '../overlays/overlay-config.ts';

export interface CheckIssue {
  path: string;
  message: string;
  /** About the key itself (a header name), so point at the key, not its value. */
  atKey?: true;
}

const SECRET_BYTES = 32;

// Headers the gateway or its HTTP client computes: the Mcp-* family (MCP Streamable HTTP
// transport) and message framing; undici also throws on the hop-by-hop ones (RFC 9110 7.6.1).
const RESERVED_HEADERS = new Set([
  'accept', 'connection', 'content-length', 'content-type', 'host', 'keep-alive',
  'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
]);

export function checkConfig(config: GatewayConfig): CheckIssue[] {
  const issues: CheckIssue[] = [];
  checkSecret(config.sessions.secret, issues);
  checkExposure(config, issues);
  checkNamesAndPrefixes(config, issues);
  checkShapingRules(config, issues);
  issues.push(...checkServers(config.servers, config.upstreams.map((u) => u.name), config.listen.path));
  checkOverlayUpstreams(config, issues);
  config.upstreams.forEach((u, i) => {
    if (u.kind === 'http') checkHttp(u, i, issues);
    else checkStdio(u, i, issues);
  });
  return issues;
}

/** A result-shaping rule for an upstream that does not exist is a typo that would apply nowhere. */
function checkShapingRules(config: GatewayConfig, issues: CheckIssue[]): void {
  const names = new Set(config.upstreams.map((u) => u.name));
  config.resultShaping.rules.forEach((r, i) => {
    if (r.upstream !== undefined && !names.has(r.upstream)) {
      issues.push({ path: toPointer(['resultShaping', 'rules', i, 'upstream']), message: `no upstream is named "${r.upstream}"` });
    }
  });
}

/** An overlay naming an upstream that does not exist would apply nowhere; a new name must fit
 * the limit merged names are held to. */
function checkOverlayUpstreams(config: GatewayConfig, issues: CheckIssue[]): void {
  const names = new Set(config.upstreams.map((u) => u.name));
  for (const o of [...config.overlays.tools, ...config.overlays.prompts]) {
    if (o.upstream !== undefined && !names.has(o.upstream)) issues.push({ path: `${o.source.path}/upstream`, message: `no upstream is named "${o.upstream}"` });
  }
  // A server's own overlays name one of its upstreams (checkServers says so otherwise).
  for (const o of allOverlays(config)) {
    if (o.name !== undefined && o.name.length > config.maxNameLength) issues.push({ path: `${o.source.path}/name`, message: `the new name is ${o.name.length} characters, over maxNameLength (${config.maxNameLength})` });
  }
}

/** The gateway-wide overlays, then each server's own. */
export function allOverlays(config: GatewayConfig): Overlay[] {
  return [config.overlays, ...config.servers.map((s) => s.overlays)].flatMap((o) => [...o.tools, ...o.prompts]);
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Anonymous access only when the config says so (issue: identity): without an `identity`
 * section the gateway is open, which is safe only on loopback. Anywhere else it must be
 * configured, if only as `identity.anonymous.enabled: true`. */
function checkExposure(config: GatewayConfig, issues: CheckIssue[]): void {
  if (config.identity !== undefined || LOOPBACK.has(config.listen.host) || /^127\./.test(config.listen.host)) return;
  issues.push({
    path: '/identity',
    message: `listening on ${config.listen.host} (not loopback) needs an \`identity\` section: API keys or OAuth, or \`identity: { resource: <this gateway's /mcp URL>, anonymous: { enabled: true } }\` to allow anonymous callers explicitly`,
  });
}

function checkSecret(secret: string | undefined, issues: CheckIssue[]): void {
  if (secret === undefined) return;
  const found = decodedLength(secret);
  if (found === `${SECRET_BYTES} bytes`) return;
  issues.push({
    path: '/sessions/secret',
    message: `expected a ${SECRET_BYTES}-byte key as 64 hex characters or base64 (try \`openssl rand -hex 32\`), got ${found}`,
  });
}

// Describes the secret by its decoded length only: the value itself must not reach logs.
function decodedLength(secret: string): string {
  // Hex first: an even-length hex string is also valid base64, of a different length.
  if (/^([0-9a-fA-F]{2})+$/.test(secret)) return `${secret.length / 2} bytes`;
  // Buffer's decoder skips characters outside the alphabet, so check the alphabet first.
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(secret)) return `${Buffer.from(secret, 'base64').length} bytes`;
  return `${secret.length} characters that are neither hex nor base64`;
}

function checkNamesAndPrefixes(config: GatewayConfig, issues: CheckIssue[]): void {
  const byName = new Map<string, number>();
  const byPrefix = new Map<string, number>();
  const { separator, maxNameLength } = config;
  config.upstreams.forEach((u, i) => {
    const sameName = byName.get(u.name);
    if (sameName !== undefined) {
      issues.push({
        path: toPointer(['upstreams', i, 'name']),
        message: `duplicate upstream name "${u.name}" (already used by /upstreams/${sameName})`,
      });
    } else {
      byName.set(u.name, i);
    }
    if (u.prefix === '') return;
    const samePrefix = byPrefix.get(u.prefix);
    const other = samePrefix === undefined ? undefined : config.upstreams[samePrefix];
    // Same name means same derived prefix: reported once above, as the name.
    if (other !== undefined && other.name !== u.name) {
      issues.push({
        path: toPointer(['upstreams', i, 'prefix']),
        message: `upstreams "${other.name}" and "${u.name}" both use the prefix "${u.prefix}"; give one a different \`prefix\``,
      });
    } else if (other === undefined) {
      byPrefix.set(u.prefix, i);
    }
    // Prefixed names are split on the first separator (docs/architecture.md section 5), so the first
    // separator in `prefix + separator` must be the one the gateway put there.
    const split = (u.prefix + separator).indexOf(separator);
    if (split !== u.prefix.length) {
      issues.push({
        path: toPointer(['upstreams', i, 'prefix']),
        message: `prefix "${u.prefix}" does not work with separator "${separator}": names are split on the first "${separator}", so "${u.prefix}${separator}name" would be read as prefix "${u.prefix.slice(0, split)}"; set a different \`prefix\``,
      });
    }
    if (u.prefix.length + separator.length >= maxNameLength) {
      issues.push({
        path: toPointer(['upstreams', i, 'prefix']),
        message: `prefix "${u.prefix}" and separator "${separator}" leave no room for a name within maxNameLength ${maxNameLength}`,
      });
    }
  });
}

function checkHttp(u: HttpUpstreamConfig, i: number, issues: CheckIssue[]): void {
  if (u.route === undefined) {
    checkUrl(u.url, ['upstreams', i, 'url'], issues);
  } else {
    // `url` is derived from these, so the route's own keys are the ones to blame.
    for (const t of u.route.targets) checkUrl(t.url, ['upstreams', i, 'route', 'targets', t.pattern], issues);
    if (u.route.default !== undefined) checkUrl(u.route.default, ['upstreams', i, 'route', 'default'], issues);
  }
  for (const name of [...Object.keys(u.headers), ...u.headerFiles.map((f) => f.header)]) {
    const lower = name.toLowerCase();
    if (lower.startsWith('mcp-') || RESERVED_HEADERS.has(lower)) {
      const at = toPointer(['upstreams', i, 'headers', name]);
      issues.push({ path: at, atKey: true, message: `header "${name}" is set by the gateway and cannot be configured` });
    }
  }
  for (const c of checkUpstreamCredentials(u)) issues.push({ path: credentialPointer(i, c), message: c.message, ...(c.atKey ? { atKey: c.atKey } : {}) });
  for (const [name, value] of Object.entries(u.headers)) {
    const at = toPointer(['upstreams', i, 'headers', name]);
    if (/[\r\n\0]/.test(value)) {
      issues.push({
        path: at,
        message: 'expected a header value without line breaks or NUL (check the environment variable; a file read into it may end with a newline)',
      });
    }
  }
  for (const f of u.headerFiles) {
    if (/[\r\n\0]/.test(f.prefix)) {
      issues.push({ path: toPointer(['upstreams', i, 'headers', f.header, 'prefix']), message: 'expected a prefix without line breaks or NUL' });
    }
  }
}

function checkUrl(url: string, at: (string | number)[], issues: CheckIssue[]): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    issues.push({
      path: toPointer(at),
      message: `expected an http:// or https:// URL, got ${protocol === undefined ? 'a value that is not a URL' : `scheme "${protocol}"`}`,
    });
  }
}

function checkStdio(u: StdioUpstreamConfig, i: number, issues: CheckIssue[]): void {
  // child_process.spawn rejects NUL in any of these (ERR_INVALID_ARG_VALUE).
  const values: [(string | number)[], string][] = [
    [['command'], u.command],
    ...u.args.map((a, j): [(string | number)[], string] => [['args', j], a]),
    ...Object.entries(u.env).map(([k, v]): [(string | number)[], string] => [['env', k], v]),
  ];
  for (const [key, value] of values) {
    if (value.includes('\0')) {
      issues.push({ path: toPointer(['upstreams', i, ...key]), message: 'expected a value without NUL characters' });
    }
  }
  if (u.restart.maxDelayMs < u.restart.initialDelayMs) {
    issues.push({
      path: toPointer(['upstreams', i, 'restart', 'maxDelay']),
      message: `expected maxDelay (${u.restart.maxDelayMs} ms) to be at least initialDelay (${u.restart.initialDelayMs} ms)`,
    });
  }
}

// What the policy end-to-end tests share: two API-key principals (alice, an analyst in the EU
// group, and bob, a guest), a policy directory in a temp dir (the gateway's own config lives
// in another temp dir, so `policy.dir` is given absolute), and raw modern and legacy calls
// that keep the HTTP status, which the SDK clients do not show.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson } from './gateway.ts';
import { useGatewayBed, type GatewayBed } from './gateway-bed.ts';

export const ALICE_KEY = 'gh_test_alice_0123456789abcdefghij';
export const BOB_KEY = 'gh_test_bob_0123456789abcdefghijkl';
export const ALICE = { 'x-api-key': ALICE_KEY };
export const BOB = { 'x-api-key': BOB_KEY };

const sha = (k: string): string => createHash('sha256').update(k).digest('hex');

/** The `identity:` section: API keys only, stored as their SHA-256 (docs/identity.md). */
export const IDENTITY_YAML = `
identity:
  resource: http://gatehouse.test/mcp
  apiKeys:
    - { id: alice, sha256: "${sha(ALICE_KEY)}", subject: alice, groups: [analysts, eu-analysts] }
    - { id: bob, sha256: "${sha(BOB_KEY)}", subject: bob, groups: [guests] }
`;

/** A fresh policy directory holding `files` (name -> YAML text). */
export function policyDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-policy-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** The usual policy test bed: the modern fixture as upstream `up`, behind a gateway with
 * IDENTITY_YAML and `policy` as its one policy file (not watched). */
export interface PolicyBed extends GatewayBed<ModernUpstream> {
  /** How many requests of `method` the upstream has received. */
  sent(method: string): number;
}

/** Sets the bed up around the suite (useGatewayBed); `ready` gets it once it is up. */
export function usePolicyBed(policy: string, ready: (bed: PolicyBed) => void): void {
  useGatewayBed({
    upstream: () => startModernUpstream({ name: 'up' }),
    config: (up) => `
${IDENTITY_YAML}
policy: { dir: "${policyDir({ '10-rules.yaml': policy })}", watch: false }
upstreams:
  - { name: up, url: "${up.url}" }
`,
    ready: ({ upstream, gw }) =>
      ready({ upstream, gw, sent: (method) => upstream.received.filter((r) => (r.body as { method?: string } | undefined)?.method === method).length }),
  });
}

let nextId = 1;

export interface RawReply {
  status: number;
  headers: Headers;
  json: any;
}

/** A modern-era tools/call with the standard headers (and any Mcp-Param-* in `extra`). */
export async function modernCall(url: string, who: Record<string, string>, name: string, args?: Record<string, unknown>, extra: Record<string, string> = {}): Promise<RawReply> {
  const params = { name, ...(args ? { arguments: args } : {}) };
  return postJson(url, modernBody(nextId++, 'tools/call', params), modernHeaders('tools/call', name, { ...who, ...extra }));
}

export async function modernList(url: string, who: Record<string, string>): Promise<RawReply> {
  return postJson(url, modernBody(nextId++, 'tools/list'), modernHeaders('tools/list', undefined, who));
}

export const toolNames = (reply: RawReply): string[] => reply.json.result.tools.map((t: { name: string }) => t.name);

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A raw 2025-11-25 session: initialize + notifications/initialized; returns a caller. */
export async function legacySession(url: string, who: Record<string, string>, capabilities: Record<string, unknown> = {}): Promise<(method: string, params: Record<string, unknown>) => Promise<RawReply>> {
  const init = await postJson(
    url,
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw-legacy', version: '1' } } },
    { ...LEGACY_HEADERS, ...who },
  );
  if (init.status !== 200) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const sid = init.headers.get('mcp-session-id')!;
  const headers = { ...LEGACY_HEADERS, ...who, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await postJson(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return (method, params) => postJson(url, { jsonrpc: '2.0', id: nextId++, method, params }, headers);
}

/** Every log line with this message, as the in-memory logger kept it. */
export function logged(logs: readonly Record<string, unknown>[], msg: string): Record<string, unknown>[] {
  return logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith(msg));
}

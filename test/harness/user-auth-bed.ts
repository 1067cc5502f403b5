// A gateway in front of an OAuth-protected MCP server (fixtures/oauth-protected-upstream.ts)
// with `auth: { type: user }`, and callers alice and bob, each with an API key of their own.
// The gateway's port is chosen first because its publicUrl (the callback) must name it.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { launchConsentBrowser, type ConsentBrowser } from './consent-browser.ts';
import { freePort } from './free-port.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { startProtectedUpstream, type ProtectedUpstream, type ProtectedUpstreamOptions } from '../fixtures/oauth-protected-upstream.ts';

export const KEYS = { alice: 'alice-key-0123456789abcdefghij', bob: 'bob-key-0123456789abcdefghijkl' } as const;
export const SEAL_KEY = randomBytes(32).toString('hex');

export interface UserAuthBed {
  gw: TestGateway;
  upstream: ProtectedUpstream;
  publicUrl: string;
  close(): Promise<void>;
}

export interface BedOptions {
  /** Extra YAML under `auth:` of the upstream (after `type: user`). Default: the pre-registered public client;
   * '' for none (the gateway then picks a Client ID Metadata Document or dynamic registration). */
  auth?: string;
  /** Extra YAML under `userAuth:`. */
  userAuth?: string;
  upstream?: Omit<ProtectedUpstreamOptions, 'redirectUri'>;
  /** Reuse a running upstream (a second replica), with this port for the gateway. */
  shared?: { upstream: ProtectedUpstream; port: number };
  now?: () => number;
  /** The gateway's port and the public URL it is reached at (a TLS front before it); default a free port, plain http. */
  at?: { port: number; publicUrl: string };
  /** Keep the audit trail (off by default). */
  audit?: boolean;
}

const sha = (k: string): string => createHash('sha256').update(k).digest('hex');

export async function startUserAuthBed(o: BedOptions = {}): Promise<UserAuthBed> {
  const port = o.shared?.port ?? o.at?.port ?? (await freePort());
  const publicUrl = o.at?.publicUrl ?? `http://127.0.0.1:${port}`;
  const upstream = o.shared?.upstream ?? (await startProtectedUpstream({ redirectUri: `${publicUrl}/oauth/callback`, ...o.upstream }));
  const yaml = `
identity:
  resource: ${publicUrl}/mcp
  apiKeys:
    - { id: alice, sha256: "${sha(KEYS.alice)}", subject: alice }
    - { id: bob, sha256: "${sha(KEYS.bob)}", subject: bob }
userAuth:
  publicUrl: ${publicUrl}
  keys: ["${SEAL_KEY}"]
${(o.userAuth ?? '').replace(/^/gm, '  ')}
${o.audit ? '' : 'audit: { enabled: false }'}
upstreams:
  - name: protected
    url: ${upstream.url}
    auth:
      type: user
${(o.auth ?? 'clientId: gatehouse-test').replace(/^/gm, '      ')}
`;
  const gw = await startTestGateway(yaml, process.env, { port, ...(o.now ? { now: o.now } : {}) });
  return {
    gw,
    upstream,
    publicUrl,
    async close() {
      await gw.close();
      if (!o.shared) await upstream.close();
    },
  };
}

export interface ConsentBed {
  bed: UserAuthBed;
  browser: ConsentBrowser;
}

/** The set-up of the consent suites: before the suite, the bed and a headless browser start
 * together and the gateway is up; after it, the browser closes, then the bed. Hooks the file
 * registers after this call run after it is up and (to close clients) before it goes down. */
export function useConsentBed(o: BedOptions, ready: (b: ConsentBed) => void): void {
  let bed: UserAuthBed | undefined;
  let browser: ConsentBrowser | undefined;
  beforeAll(async () => {
    [bed, browser] = await Promise.all([startUserAuthBed(o), launchConsentBrowser()]);
    await bed.gw.waitUp();
    ready({ bed, browser });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await bed?.close();
  });
}

// The credentials one HTTP upstream (or one target of a routed upstream) gets from the
// gateway itself: headers read from files (re-read on rotation) and an OAuth access token
// from the client-credentials grant. The client's own credentials are never among them
// (MCP 2026-07-28, basic/authorization 6: no token passthrough). Static `headers` from the config stay in
// HttpUpstream, which needs no I/O for them; an upstream with neither files nor `auth` gets
// no UpstreamCredentials at all, so its requests pay nothing for this.
//
// HttpUpstream asks `headers()` before every request (calls, the era probe, the
// notification stream) and reports a 401 with `rejected()`, which says whether one retry
// may succeed: the OAuth token is dropped, and header files are looked at again at once.

import { Pool } from 'undici';
import type { HttpUpstreamConfig } from '../../config/types.ts';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { ClientCredentialsToken, type UpstreamUnavailable } from './oauth-client-credentials.ts';
import { postTokenRequest } from './oauth-token-request.ts';
import { SecretFile } from './secret-file.ts';

export type { UpstreamUnavailable } from './oauth-client-credentials.ts';

export type CredentialHeaders = Readonly<Record<string, string>>;

export interface UpstreamCredentials {
  /** Header name (lower case) -> value, current as of now. */
  headers(): Promise<Result<CredentialHeaders, UpstreamUnavailable>>;
  /** The upstream answered 401 to a request sent with `sent`; true when a retry may carry different credentials. */
  rejected(sent: CredentialHeaders): Promise<boolean>;
  close(): Promise<void>;
}

export interface CredentialsDeps {
  now?: () => number;
}

const AUTHORIZATION = 'authorization';

/** Undefined when the upstream has no header files and no `auth`. */
export function createUpstreamCredentials(
  config: HttpUpstreamConfig,
  logger: Logger,
  deps: CredentialsDeps = {},
): UpstreamCredentials | undefined {
  if (config.headerFiles.length === 0 && config.auth === undefined) return undefined;
  return new FileAndOAuthCredentials(config, logger, deps);
}

interface HeaderFromFile {
  /** As configured, for messages. */
  header: string;
  /** Lower case, as sent. */
  name: string;
  prefix: string;
  secret: SecretFile;
}

class FileAndOAuthCredentials implements UpstreamCredentials {
  private readonly upstream: string;
  private readonly files: HeaderFromFile[];
  private readonly oauth: ClientCredentialsToken | undefined;
  private readonly pool: Pool | undefined;

  constructor(config: HttpUpstreamConfig, logger: Logger, deps: CredentialsDeps) {
    this.upstream = config.name;
    const now = deps.now ?? Date.now;
    this.files = config.headerFiles.map((f) => ({
      header: f.header,
      name: f.header.toLowerCase(),
      prefix: f.prefix,
      secret: new SecretFile({ file: f.file, logger, what: `header "${f.header}"`, now }),
    }));
    const auth = config.auth;
    if (auth === undefined) return;
    const tokenUrl = new URL(auth.tokenUrl);
    // Its own small pool: token requests are rare, and must not queue behind tool calls.
    const pool = new Pool(tokenUrl.origin, { connections: 2, keepAliveTimeout: 30_000 });
    this.pool = pool;
    const secretFile = 'file' in auth.clientSecret
      ? new SecretFile({ file: auth.clientSecret.file, logger, what: 'auth.clientSecretFile', now })
      : undefined;
    const fixedSecret = 'value' in auth.clientSecret ? auth.clientSecret.value : undefined;
    // MCP requires `resource` = the canonical URI of the server the token is for (MCP 2026-07-28,
    // basic/authorization, client side; RFC 8707 section 2): this HttpUpstream's own URL, per route target.
    const resource = auth.resource.kind === 'upstream-url' ? config.url : auth.resource.kind === 'uri' ? auth.resource.uri : undefined;
    this.oauth = new ClientCredentialsToken({
      upstream: config.name,
      tokenUrl: auth.tokenUrl,
      logger,
      now,
      requestToken: async () => {
        const clientSecret = fixedSecret ?? (await secretFile?.current());
        if (clientSecret === undefined) return err(`the client secret file ${secretFile?.file ?? ''} has never been readable`);
        return postTokenRequest(pool, tokenUrl, {
          clientId: auth.clientId,
          clientSecret,
          clientAuth: auth.clientAuth,
          scope: auth.scope,
          resource,
          audience: auth.audience,
        }, config.timeoutMs);
      },
    });
  }

  async headers(): Promise<Result<CredentialHeaders, UpstreamUnavailable>> {
    const out: Record<string, string> = {};
    for (const f of this.files) {
      const value = await f.secret.current();
      if (value === undefined) {
        return err({ kind: 'upstream_unavailable', upstream: this.upstream, reason: `the credential for header "${f.header}" cannot be read` });
      }
      out[f.name] = f.prefix + value;
    }
    if (this.oauth) {
      const authorization = await this.oauth.authorization();
      if (!authorization.ok) return authorization;
      out[AUTHORIZATION] = authorization.value;
    }
    return ok(out);
  }

  async rejected(sent: CredentialHeaders): Promise<boolean> {
    let retry = false;
    for (const f of this.files) if (await f.secret.recheck()) retry = true;
    const authorization = sent[AUTHORIZATION];
    if (this.oauth && authorization !== undefined && this.oauth.invalidate(authorization)) retry = true;
    return retry;
  }

  async close(): Promise<void> {
    await this.pool?.destroy().catch(() => undefined);
  }
}

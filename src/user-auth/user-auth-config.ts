// The normalized form of per-user upstream authorization (docs/architecture.md house style 4):
// the frozen `userAuth` section and each `auth: { type: user }` upstream, with the checks a
// schema cannot say, made after ${ENV} interpolation. Messages never repeat a key or secret.
import { durationMs, durationTooLong } from '../config/duration.ts';
import { isHttpUrl, isSecureOrLoopback } from '../identity/http-url.ts';
import type { RawTokenExchangeUpstream, RawUserAuthConfig, RawUserAuthUpstream } from './user-auth-schema.ts';

export interface UserAuthConfig {
  /** Without a trailing slash. */
  publicUrl: string;
  /** 32-byte keys as lower-case hex; the first seals, all open. */
  keys: readonly string[];
  store: { kind: 'memory' } | { kind: 'redis'; redisUrl: string; prefix: string };
  consentTimeoutMs: number;
  withoutConsent: 'show' | 'hide';
  /** The consent page checks that whoever opens a link is the user it names (consent-user.ts). */
  verifyConsentUser: boolean;
}

/** A configured client's credentials: its secret given in the config, or the file holding it
 * (absolute; read at boot by the config check, and again when it changes: client-secrets.ts). */
export interface ConfiguredClient {
  id: string;
  secret: string | undefined;
  secretFile: string | undefined;
  auth: 'client_secret_basic' | 'client_secret_post';
}

/** An upstream's `auth: { type: user }`. */
export interface UserUpstreamAuth {
  type: 'user';
  /** Pre-registered client; undefined: Client ID Metadata Document or dynamic registration. */
  client: ConfiguredClient | undefined;
  /** Space-separated; undefined: from the upstream's challenge or metadata. */
  scope: string | undefined;
  /** RFC 8707 resource; undefined: the one the upstream's metadata names. */
  resource: string | undefined;
}

/** An upstream's `auth: { type: token_exchange }` (RFC 8693). */
export interface TokenExchangeAuth {
  type: 'token_exchange';
  tokenUrl: string;
  client: ConfiguredClient;
  audience: string | undefined;
  /** undefined: the upstream's URL. */
  resource: string | undefined;
  scope: string | undefined;
  actorToken: string | undefined;
}

export interface UserAuthIssue {
  /** JSON pointer relative to the config document. */
  path: string;
  message: string;
}

export const USER_AUTH_DEFAULTS = { consentTimeout: '10m', prefix: 'gatehouse:user-tokens:' } as const;
const KEY_PATTERN = /^[0-9a-fA-F]{64}$/;
/** Long enough for a person to log in; short enough that a leaked link soon dies. */
const MAX_CONSENT_TIMEOUT_MS = 60 * 60_000;

export function normalizeUserAuthConfig(raw: RawUserAuthConfig, issues: UserAuthIssue[]): UserAuthConfig {
  const publicUrl = raw.publicUrl.replace(/\/+$/, '');
  if (!isHttpUrl(publicUrl)) issues.push({ path: '/userAuth/publicUrl', message: 'expected an absolute http:// or https:// URL' });
  // RFC 6749 section 3.1.2.1: the redirection endpoint should require TLS; codes travel in it.
  else if (!isSecureOrLoopback(new URL(publicUrl))) issues.push({ path: '/userAuth/publicUrl', message: 'expected https (plain http only to a loopback host): authorization codes would travel in clear' });
  raw.keys.forEach((k, i) => {
    if (!KEY_PATTERN.test(k)) issues.push({ path: `/userAuth/keys/${i}`, message: 'expected a 32-byte key as 64 hex characters (openssl rand -hex 32)' });
  });
  const timeout = durationMs(raw.consentTimeout ?? USER_AUTH_DEFAULTS.consentTimeout);
  let consentTimeoutMs = 600_000;
  if (timeout === undefined) issues.push({ path: '/userAuth/consentTimeout', message: durationTooLong(String(raw.consentTimeout)) });
  else if (timeout <= 0 || timeout > MAX_CONSENT_TIMEOUT_MS) issues.push({ path: '/userAuth/consentTimeout', message: 'expected a duration above 0 and at most 1h' });
  else consentTimeoutMs = timeout;
  let store: UserAuthConfig['store'] = { kind: 'memory' };
  if (raw.store?.kind === 'redis') {
    if (!raw.store.redisUrl) issues.push({ path: '/userAuth/store/redisUrl', message: 'expected a redis:// URL when kind is redis' });
    else store = { kind: 'redis', redisUrl: raw.store.redisUrl, prefix: raw.store.prefix ?? USER_AUTH_DEFAULTS.prefix };
  }
  return { publicUrl, keys: raw.keys.map((k) => k.toLowerCase()), store, consentTimeoutMs, withoutConsent: raw.withoutConsent ?? 'show', verifyConsentUser: raw.verifyConsentUser ?? true };
}

/** `at`: the pointer of the upstream's `auth`; `resolve` makes a file name absolute. */
export function normalizeUserUpstreamAuth(raw: RawUserAuthUpstream, at: string, issues: UserAuthIssue[], resolve: (file: string) => string = (f) => f): UserUpstreamAuth {
  if (raw.clientSecret !== undefined && raw.clientId === undefined) issues.push({ path: `${at}/clientSecret`, message: 'a client secret needs its `clientId`' });
  if (raw.clientSecretFile !== undefined && raw.clientId === undefined) issues.push({ path: `${at}/clientSecretFile`, message: 'a client secret file needs its `clientId`' });
  checkSecretSources(raw, at, issues);
  // RFC 8707 section 2: an absolute URI without a fragment.
  if (raw.resource !== undefined && (!isHttpUrl(raw.resource) || new URL(raw.resource).hash !== '')) {
    issues.push({ path: `${at}/resource`, message: 'expected an absolute http(s) URL without a fragment (RFC 8707 section 2)' });
  }
  return {
    type: 'user',
    client: raw.clientId === undefined ? undefined : configuredClient(raw.clientId, raw, resolve),
    scope: raw.scope,
    resource: raw.resource,
  };
}

/** `at`: the pointer of the upstream's `auth`; `resolve` makes a file name absolute. */
export function normalizeTokenExchangeAuth(raw: RawTokenExchangeUpstream, at: string, issues: UserAuthIssue[], resolve: (file: string) => string = (f) => f): TokenExchangeAuth {
  if (!isHttpUrl(raw.tokenUrl)) issues.push({ path: `${at}/tokenUrl`, message: 'expected an absolute http:// or https:// URL' });
  // RFC 6749 section 3.2; the caller's token travels in this request.
  else if (!isSecureOrLoopback(new URL(raw.tokenUrl))) issues.push({ path: `${at}/tokenUrl`, message: "expected https (plain http only to a loopback host): the caller's token would travel in clear" });
  checkSecretSources(raw, at, issues);
  if (raw.actorToken === '') issues.push({ path: `${at}/actorToken`, message: 'expected a non-empty actor token (check the environment variable)' });
  if (raw.resource !== undefined && (!isHttpUrl(raw.resource) || new URL(raw.resource).hash !== '')) {
    issues.push({ path: `${at}/resource`, message: 'expected an absolute http(s) URL without a fragment (RFC 8707 section 2)' });
  }
  return {
    type: 'token_exchange',
    tokenUrl: raw.tokenUrl,
    client: configuredClient(raw.clientId, raw, resolve),
    audience: raw.audience,
    resource: raw.resource,
    scope: raw.scope,
    actorToken: raw.actorToken || undefined,
  };
}

type SecretSources = Pick<RawUserAuthUpstream, 'clientSecret' | 'clientSecretFile' | 'clientAuth'>;

function checkSecretSources(raw: SecretSources, at: string, issues: UserAuthIssue[]): void {
  if (raw.clientSecret === '') issues.push({ path: `${at}/clientSecret`, message: 'expected a non-empty client secret (check the environment variable)' });
  if (raw.clientSecret !== undefined && raw.clientSecretFile !== undefined) issues.push({ path: `${at}/clientSecretFile`, message: 'set one of `clientSecret` and `clientSecretFile`, not both' });
}

function configuredClient(id: string, raw: SecretSources, resolve: (file: string) => string): ConfiguredClient {
  return { id, secret: raw.clientSecret || undefined, secretFile: raw.clientSecretFile === undefined ? undefined : resolve(raw.clientSecretFile), auth: raw.clientAuth ?? 'client_secret_basic' };
}

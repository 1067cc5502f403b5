// JSON Schema (2020-12) of per-user upstream authorization: the top-level `userAuth:` section
// (where browsers reach the gateway, the keys that seal state and tokens, the token store)
// and the `auth: { type: user }` form of an upstream's `auth`. Shape only: checks after
// ${ENV} interpolation are in user-auth-config.ts.
import { HTTP_URL_SCHEMA } from '../config/http-url-schema.ts';
import { durationSchema, type RawDuration } from '../config/duration.ts';

export const USER_AUTH_CONFIG_SCHEMA = {
  description:
    'Per-user upstream authorization (upstreams with `auth: { type: user }`): each caller connects their own account at the upstream\'s authorization server, and the gateway keeps their tokens sealed.',
  type: 'object',
  additionalProperties: false,
  required: ['publicUrl', 'keys'],
  properties: {
    publicUrl: {
      ...HTTP_URL_SCHEMA,
      description:
        'Where browsers reach the gateway, e.g. https://gw.example.com: the base of the consent page, the OAuth callback and the client metadata document. https (plain http only to a loopback host).',
    },
    keys: {
      description: '32-byte keys as 64 hex characters (`openssl rand -hex 32`); the first seals, every key opens (rotation). Put a new key first, keep the old one until its tokens are refreshed.',
      type: 'array',
      minItems: 1,
      items: { description: 'One key.', type: 'string' },
    },
    store: {
      description: 'Where the sealed tokens live: in memory (one replica; lost on restart) or in Redis (shared by replicas). Default memory.',
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: {
        kind: { description: 'memory or redis.', enum: ['memory', 'redis'] },
        redisUrl: { description: 'redis:// or rediss:// URL (kind redis).', type: 'string', pattern: '^(rediss?://|\\$\\{)', errorMessage: 'expected a redis:// or rediss:// URL' },
        prefix: { description: 'Key prefix. Default "gatehouse:user-tokens:".', type: 'string', minLength: 1 },
      },
    },
    consentTimeout: { description: 'How long a consent link and the authorization it starts stay valid.', ...durationSchema('10m') },
    withoutConsent: {
      description:
        'What a caller without a token sees of such an upstream in lists: `show` its tools (as last listed for anyone, so they can be discovered and a call starts consent) or `hide` them. Default show.',
      enum: ['show', 'hide'],
    },
    verifyConsentUser: {
      description:
        "Whether the consent link's page asks the person to sign in with their gateway credential and refuses anyone but the user the link was made for (MCP 2025-11-25, client/elicitation, URL mode security: phishing protection). Default true. false only where gateway credentials cannot be used in a browser; it weakens that protection, and the gateway warns at start.",
      type: 'boolean',
    },
  },
};

export const USER_AUTH_UPSTREAM_SCHEMA = {
  description:
    "Per-user OAuth (authorization code with PKCE): each caller reaches the upstream with their own token. The authorization server is discovered from the upstream's 401 (RFC 9728, RFC 8414). Needs the top-level `userAuth` section.",
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { description: '"user".' },
    clientId: { description: 'A client pre-registered at the authorization server. Unset: a Client ID Metadata Document if the server supports it, else dynamic registration (RFC 7591).', type: 'string', minLength: 1 },
    clientSecret: { description: 'The pre-registered client\'s secret, usually "${ENV_VAR}". Unset (and no clientSecretFile): a public client.', type: 'string' },
    clientSecretFile: {
      description: "File holding the pre-registered client's secret instead (e.g. /run/secrets/github-client-secret), relative to the config file's directory; surrounding whitespace is trimmed, and the file is read again when it changes. Not with clientSecret.",
      type: 'string',
      minLength: 1,
    },
    clientAuth: {
      description: 'How a pre-registered client with a secret authenticates at the token endpoint. Default client_secret_basic.',
      enum: ['client_secret_basic', 'client_secret_post'],
    },
    scope: {
      description: "Scopes to ask for, space-separated. Default: the scope of the upstream's challenge, else its metadata's scopes_supported.",
      type: 'string',
      minLength: 1,
    },
    resource: {
      ...HTTP_URL_SCHEMA,
      description: "RFC 8707 resource indicator. Default: the resource named by the upstream's protected-resource metadata (which must match its URL).",
    },
  },
};

export interface RawUserAuthConfig {
  publicUrl: string;
  keys: string[];
  store?: { kind: 'memory' | 'redis'; redisUrl?: string; prefix?: string };
  consentTimeout?: RawDuration;
  withoutConsent?: 'show' | 'hide';
  verifyConsentUser?: boolean;
}

export interface RawUserAuthUpstream {
  type: 'user';
  clientId?: string;
  clientSecret?: string;
  clientSecretFile?: string;
  clientAuth?: 'client_secret_basic' | 'client_secret_post';
  scope?: string;
  resource?: string;
}

export const TOKEN_EXCHANGE_UPSTREAM_SCHEMA = {
  description:
    "OAuth 2.0 Token Exchange (RFC 8693): the caller's own validated access token (identity.jwt) is exchanged at `tokenUrl` for one meant for this upstream, for upstreams in the same trust domain. Callers without an OAuth token (API keys, anonymous) cannot use it.",
  type: 'object',
  additionalProperties: false,
  required: ['type', 'tokenUrl', 'clientId'],
  properties: {
    type: { description: '"token_exchange".' },
    tokenUrl: { ...HTTP_URL_SCHEMA, description: "The authorization server's token endpoint; https (plain http only to a loopback host)." },
    clientId: { description: "The gateway's client_id there.", type: 'string', minLength: 1 },
    clientSecret: { description: 'Its secret, usually "${ENV_VAR}". Unset (and no clientSecretFile): a public client.', type: 'string' },
    clientSecretFile: {
      description: "File holding its secret instead, relative to the config file's directory; surrounding whitespace is trimmed, and the file is read again when it changes. Not with clientSecret.",
      type: 'string',
      minLength: 1,
    },
    clientAuth: { description: 'client_secret_basic (default) or client_secret_post.', enum: ['client_secret_basic', 'client_secret_post'] },
    audience: { description: 'RFC 8693 `audience`: the logical name of the upstream at the authorization server. Default: none sent.', type: 'string', minLength: 1 },
    resource: { ...HTTP_URL_SCHEMA, description: "RFC 8693 / RFC 8707 `resource`. Default: the upstream's URL." },
    scope: { description: 'Scopes to ask for, space-separated. Default: none sent.', type: 'string', minLength: 1 },
    actorToken: {
      description: "The gateway's own token, sent as `actor_token` (RFC 8693 section 2.1, delegation), usually \"${ENV_VAR}\". Default: none sent.",
      type: 'string',
    },
  },
};

export interface RawTokenExchangeUpstream {
  type: 'token_exchange';
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  clientSecretFile?: string;
  clientAuth?: 'client_secret_basic' | 'client_secret_post';
  audience?: string;
  resource?: string;
  scope?: string;
  actorToken?: string;
}

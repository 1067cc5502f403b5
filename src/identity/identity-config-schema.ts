// JSON Schema (2020-12) fragment of the gateway config's `identity:` key, and of each entry
// of an `apiKeysFile`. It is self-contained (no `$ref`, no `$schema`) so it can be placed
// under any property of another schema. Shape only: the checks a schema cannot say (which
// key source the algorithms need, secret length, duplicate keys, reading files) are in
// identity-config.ts.
//
// The gateway validates its YAML before ${ENV} interpolation, so patterns on strings that
// may come from the environment also accept a value starting with `${`; the normalizer checks
// the interpolated value again. `errorMessage` is the same non-standard annotation the
// gateway schema uses (config/config-schema.ts).

import { durationSchema, type RawDuration } from '../config/duration.ts';
import { HTTP_URL_SCHEMA } from '../config/http-url-schema.ts';

/** Algorithms a token may be signed with. `none` is absent on purpose: it is never accepted. */
export const JWS_ALGORITHMS = [
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
  'HS256', 'HS384', 'HS512',
] as const;

export type JwsAlgorithm = (typeof JWS_ALGORITHMS)[number];

// RFC 6749 section 3.3 scope-token: printable ASCII without space, `"` and `\`, which also
// keeps every scope safe inside a WWW-Authenticate quoted-string.
const SCOPE_PATTERN = '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$';
const KEY_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

function strings(description: string, item: Record<string, unknown>): Record<string, unknown> {
  return { description, type: 'array', uniqueItems: true, items: item };
}

const GROUP = { description: 'A group or role name.', type: 'string', minLength: 1 };
const SCOPE = {
  description: 'An OAuth scope (RFC 6749 section 3.3 scope-token).',
  type: 'string',
  pattern: SCOPE_PATTERN,
  errorMessage: 'expected an OAuth scope: printable ASCII without spaces, quotes or backslashes',
};

/** One API key: in `identity.apiKeys`, or an item of the list in `identity.apiKeysFile`. */
export const API_KEY_SCHEMA = {
  description: 'One API key, stored as the SHA-256 of the key (`gatehouse key hash`), never in clear.',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'sha256'],
  properties: {
    id: {
      description: 'Unique name of the key; appears in audit records and as `key:<id>` in the authorization context. Not secret.',
      type: 'string',
      pattern: KEY_ID_PATTERN,
      errorMessage: 'expected an id of letters, digits, "_", "." and "-" that starts with a letter or digit',
    },
    sha256: {
      description: 'Lower- or upper-case hex SHA-256 of the key, optionally written `sha256:<hex>`.',
      type: 'string',
      // Inside a oneOf so that no validator echoes the value: an operator who pasted the key
      // itself here must not find it repeated in the boot log.
      oneOf: [{ pattern: '^((sha256:)?[0-9A-Fa-f]{64}|\\$\\{.*)$' }],
      errorMessage: 'expected 64 hex digits (optionally prefixed "sha256:") as printed by `gatehouse key hash`, not the key itself',
    },
    subject: { description: 'Principal subject for callers using this key. Default: the id.', type: 'string', minLength: 1 },
    groups: strings('Groups / roles of the principal, for policy rules. Default [].', GROUP),
    scopes: strings('Scopes the key grants; checked against `requiredScopes` like a token\'s. Default [].', SCOPE),
    claims: {
      description: 'Claims of the principal, for policy rules (as a token\'s claims would be). Default {}.',
      type: 'object',
    },
  },
};

/** The content of an `apiKeysFile`. */
export const API_KEY_LIST_SCHEMA = {
  description: 'A list of API keys.',
  type: 'array',
  items: API_KEY_SCHEMA,
};

export const IDENTITY_CONFIG_SCHEMA = {
  description:
    'Who may call the gateway: API keys, OAuth 2.1 bearer JWTs (the gateway is a resource server, RFC 9728), or anonymous callers when enabled. Client credentials are never forwarded upstream.',
  type: 'object',
  additionalProperties: false,
  required: ['resource'],
  properties: {
    resource: {
      description:
        'Canonical URI of the MCP endpoint as clients reach it, e.g. https://gw.example.com/mcp: the RFC 9728 `resource`, the default JWT audience, and where the metadata URL sent in WWW-Authenticate points.',
      ...HTTP_URL_SCHEMA,
    },
    anonymous: {
      description: 'Callers with no credentials. Disabled by default.',
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { description: 'Admit callers that present no credentials. Default false.', type: 'boolean', default: false },
        subject: { description: 'Subject of the anonymous principal. Default "anonymous".', type: 'string', minLength: 1, default: 'anonymous' },
        groups: strings('Groups of the anonymous principal. Default [].', GROUP),
      },
    },
    apiKeys: {
      description: 'API keys, sent as `Authorization: Bearer <key>` or `X-API-Key: <key>`.',
      type: 'array',
      items: API_KEY_SCHEMA,
    },
    apiKeysFile: {
      description:
        'A YAML or JSON file holding a list of API keys in the same shape as `apiKeys`, relative to the config file. Read at boot; combined with `apiKeys`.',
      type: 'string',
      minLength: 1,
    },
    jwt: {
      description: 'OAuth 2.1 bearer access tokens in JWT form, verified locally (signature, issuer, audience, expiry).',
      type: 'object',
      additionalProperties: false,
      required: ['issuer'],
      properties: {
        issuer: { description: 'Expected `iss`, compared exactly (RFC 8414 issuer identifier).', type: 'string', minLength: 1 },
        audience: {
          description:
            'Expected `aud`: the token must name (one of) these. Default: `resource`. Tokens for other resources are refused (RFC 8707).',
          type: ['string', 'array'],
          minLength: 1,
          minItems: 1,
          uniqueItems: true,
          items: { description: 'An audience value.', type: 'string', minLength: 1 },
        },
        jwksUrl: {
          description:
            "URL of the authorization server's JWKS. https, or http only on a loopback host. Cached, refetched when a token names an unknown key id (at most every 30s).",
          ...HTTP_URL_SCHEMA,
        },
        jwksFile: {
          description: 'Instead of `jwksUrl`: a JWKS JSON file of public keys, relative to the config file. Read at boot.',
          type: 'string',
          minLength: 1,
        },
        secret: {
          description:
            'Shared secret for HS256/384/512, needed only when `algorithms` lists one; at least as many bytes as the hash (32, 48, 64). Use ${ENV}.',
          type: 'string',
        },
        algorithms: {
          description: 'Accepted `alg` values, pinned (RFC 8725 section 3.1). Default [RS256]. HS* only when listed, and only with `secret`.',
          type: 'array',
          minItems: 1,
          uniqueItems: true,
          items: {
            description: 'A JWS algorithm.',
            enum: [...JWS_ALGORITHMS],
            errorMessage: `expected one of ${JWS_ALGORITHMS.join(', ')} ("none" is never accepted)`,
          },
        },
        clockTolerance: {
          description: 'Allowed clock skew for `exp` and `nbf`: "30s", or an integer of milliseconds. At most 5m. Default 30s.',
          default: '30s',
          ...durationSchema('30s'),
        },
        typ: {
          description: 'When set, the JWT header `typ` must equal it (RFC 9068 access tokens use "at+jwt"). Default: any.',
          type: 'string',
          minLength: 1,
        },
        claims: {
          description: 'Which claims become the principal. A name is tried as a claim first, then as a dotted path (realm_access.roles).',
          type: 'object',
          additionalProperties: false,
          properties: {
            subject: { description: 'Claim holding the subject. Default "sub".', type: 'string', minLength: 1, default: 'sub' },
            groups: { description: 'Claim holding groups / roles: a string or an array of strings. Default "groups".', type: 'string', minLength: 1, default: 'groups' },
            scopes: {
              description: 'Claim holding scopes: space-separated string or array. Default: `scope`, else `scp`.',
              type: 'string',
              minLength: 1,
            },
          },
        },
      },
    },
    authorizationServers: {
      description: 'RFC 9728 `authorization_servers` (issuer URLs) in the metadata. Default: [jwt.issuer].',
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { description: 'An authorization server issuer URL.', ...HTTP_URL_SCHEMA },
    },
    scopesSupported: strings('RFC 9728 `scopes_supported` in the metadata (not offline_access). Default [].', SCOPE),
    requiredScopes: strings(
      'Scopes every authenticated request needs (token scopes, or an API key\'s `scopes`); without them: 403 insufficient_scope. Default [].',
      SCOPE,
    ),
  },
};

/** The `identity:` value after schema validation: what IDENTITY_CONFIG_SCHEMA guarantees. */
export interface RawIdentityConfig {
  resource: string;
  anonymous?: { enabled?: boolean; subject?: string; groups?: string[] };
  apiKeys?: RawApiKey[];
  apiKeysFile?: string;
  jwt?: RawJwtConfig;
  authorizationServers?: string[];
  scopesSupported?: string[];
  requiredScopes?: string[];
}

export interface RawApiKey {
  id: string;
  sha256: string;
  subject?: string;
  groups?: string[];
  scopes?: string[];
  claims?: Record<string, unknown>;
}

export interface RawJwtConfig {
  issuer: string;
  audience?: string | string[];
  jwksUrl?: string;
  jwksFile?: string;
  secret?: string;
  algorithms?: JwsAlgorithm[];
  clockTolerance?: RawDuration;
  typ?: string;
  claims?: { subject?: string; groups?: string; scopes?: string };
}

// JSON Schema (2020-12) fragments of an HTTP upstream's own credentials: its `headers`
// (static, or read from a file) and its `auth` (OAuth 2.0 client-credentials grant, RFC 6749
// section 4.4). The gateway never forwards the client's credentials (MCP 2026-07-28, basic/authorization 6), so
// these are the only credentials an upstream ever sees. Shape only: reading the files, URL
// checks after ${ENV} interpolation and "Authorization set twice" are in
// upstream-credentials-config.ts.

import { HTTP_URL_PATTERN, HTTP_URL_SCHEMA } from './http-url-schema.ts';
import { TOKEN_EXCHANGE_UPSTREAM_SCHEMA, USER_AUTH_UPSTREAM_SCHEMA, type RawTokenExchangeUpstream, type RawUserAuthUpstream } from '../user-auth/user-auth-schema.ts';

// RFC 9110 section 5.6.2 `token`: anything else is rejected by undici at request time.
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
// RFC 6749 section 3.3: space-delimited scope-tokens (printable ASCII without space, `"`, `\`).
const SCOPE_TOKEN = '[\\x21\\x23-\\x5B\\x5D-\\x7E]+';

export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

export const UPSTREAM_HEADERS_SCHEMA = {
  description:
    'Headers sent to the upstream with every request: a string (`Authorization: "Bearer ${TOKEN}"`) or `{ file, prefix }`, read from a file at boot and again whenever the file changes (secret rotation without a restart). HTTP only.',
  type: 'object',
  propertyNames: {
    pattern: HEADER_NAME_PATTERN,
    errorMessage: 'expected an HTTP header name (RFC 9110 token)',
  },
  additionalProperties: {
    description: 'Header value, or where to read it from.',
    // One schema for both forms: the object keywords apply to objects only, so a string
    // passes them, and a wrong type gets one plain "expected string or object".
    type: ['string', 'object'],
    additionalProperties: false,
    required: ['file'],
    properties: {
      file: {
        description:
          "File holding the value (e.g. /run/secrets/weather-token), relative to the config file's directory. Surrounding whitespace, such as a trailing newline, is trimmed.",
        type: 'string',
        minLength: 1,
      },
      prefix: { description: 'Written before the file\'s content, e.g. "Bearer ". Default "".', default: '', type: 'string' },
    },
  },
};

const CLIENT_CREDENTIALS_AUTH_SCHEMA = {
  description:
    "The gateway's own OAuth client for this upstream: an access token from the client-credentials grant (RFC 6749 section 4.4), cached until shortly before it expires and sent as `Authorization: Bearer`. HTTP only.",
  type: 'object',
  additionalProperties: false,
  required: ['type', 'tokenUrl', 'clientId'],
  properties: {
    // Checked once, by UPSTREAM_AUTH_SCHEMA's enum below, so a wrong type gets one message.
    type: { description: 'The grant: "client_credentials".' },
    tokenUrl: {
      ...HTTP_URL_SCHEMA,
      description: "The authorization server's token endpoint; https (plain http only to a loopback host).",
    },
    clientId: { description: "The gateway's client_id at that authorization server.", type: 'string', minLength: 1 },
    clientSecret: { description: 'The client secret, usually "${ENV_VAR}". Exactly one of clientSecret and clientSecretFile.', type: 'string' },
    clientSecretFile: {
      description: "File holding the client secret, relative to the config file's directory; re-read when it changes.",
      type: 'string',
      minLength: 1,
    },
    clientAuth: {
      description: 'How the client authenticates at the token endpoint (RFC 6749 section 2.3.1). Default client_secret_basic.',
      default: 'client_secret_basic',
      enum: [...CLIENT_AUTH_METHODS],
    },
    scope: {
      description: 'Scopes to ask for: a space-separated string or a list (RFC 6749 section 3.3). Default: none sent.',
      type: ['string', 'array'],
      pattern: `^${SCOPE_TOKEN}( ${SCOPE_TOKEN})*$`,
      items: {
        type: 'string',
        pattern: `^${SCOPE_TOKEN}$`,
        errorMessage: 'expected one OAuth scope: printable ASCII without spaces, quotes or backslashes',
      },
      errorMessage: 'expected OAuth scopes: printable ASCII without quotes or backslashes, separated by single spaces',
    },
    resource: {
      description:
        "RFC 8707 resource indicator sent with the token request. Default: the upstream's own URL (for a routed upstream, each target's), as MCP requires; false sends none, for authorization servers that reject the parameter.",
      type: ['string', 'boolean'],
      not: { const: true },
      pattern: HTTP_URL_PATTERN,
      errorMessage: 'expected an http:// or https:// URL, or false',
    },
    audience: {
      description: 'An `audience` parameter for authorization servers that want one instead of `resource` (a vendor extension). Default: none sent.',
      type: 'string',
      minLength: 1,
    },
  },
  // In allOf so that the message applies to this rule alone, not to every keyword above.
  allOf: [
    {
      description: 'Exactly one secret source.',
      oneOf: [{ required: ['clientSecret'] }, { required: ['clientSecretFile'] }],
      errorMessage: 'expected exactly one of `clientSecret` and `clientSecretFile`',
    },
  ],
};

export const UPSTREAM_AUTH_SCHEMA = {
  description:
    'How the gateway authenticates to this upstream: as itself (`type: client_credentials`), as each calling user (`type: user`), or with a token exchanged for the caller\'s (`type: token_exchange`). HTTP only.',
  type: 'object',
  required: ['type'],
  // The branches below close the object (additionalProperties: false, each with its own keys).
  allOf: [{ properties: { type: { description: 'client_credentials, user or token_exchange.', enum: ['client_credentials', 'user', 'token_exchange'] } } }],
  if: { properties: { type: { description: 'Per-user OAuth.', const: 'user' } } },
  then: USER_AUTH_UPSTREAM_SCHEMA,
  else: {
    if: { properties: { type: { description: 'Token exchange.', const: 'token_exchange' } } },
    then: TOKEN_EXCHANGE_UPSTREAM_SCHEMA,
    else: CLIENT_CREDENTIALS_AUTH_SCHEMA,
  },
};

export type RawHeaderValue = string | { file: string; prefix?: string };

export type RawUpstreamAuth = RawClientCredentialsAuth | RawUserAuthUpstream | RawTokenExchangeUpstream;

export interface RawClientCredentialsAuth {
  type: 'client_credentials';
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  clientSecretFile?: string;
  clientAuth?: ClientAuthMethod;
  scope?: string | string[];
  resource?: string | false;
  audience?: string;
}

// The `WWW-Authenticate: Bearer ...` challenge of 400/401/403 answers (RFC 6750 section 3,
// with the RFC 9728 section 5.1 `resource_metadata` parameter; MCP 2026-07-28, basic/authorization 2-3). Pure: the
// authenticator decides what to say, this only says it in a form every client parses.

export const BEARER_SCHEME = 'Bearer';

/** RFC 6750 section 3.1 error codes, sent in the challenge. */
export type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export interface Challenge {
  /** Omitted when the request carried no credentials at all (RFC 6750 section 3.1). */
  error?: BearerError;
  description?: string;
  /** RFC 9728 metadata URL; omitted when the gateway has no authorization server to point to. */
  resourceMetadata?: string;
  /** Every scope the request needs, in one challenge (MCP 2026-07-28, basic/authorization 3); omitted when empty. */
  scopes: readonly string[];
}

export function bearerChallenge(c: Challenge): string {
  const params: string[] = [];
  if (c.error !== undefined) params.push(`error=${quote(c.error)}`);
  if (c.description !== undefined) params.push(`error_description=${quote(c.description)}`);
  if (c.resourceMetadata !== undefined) params.push(`resource_metadata=${quote(c.resourceMetadata)}`);
  if (c.scopes.length > 0) params.push(`scope=${quote(c.scopes.join(' '))}`);
  return params.length === 0 ? BEARER_SCHEME : `${BEARER_SCHEME} ${params.join(', ')}`;
}

// RFC 6750 section 3: error, error_description and scope values use only %x20-21 / %x23-5B /
// %x5D-7E, so nothing needs escaping and no `"` or `\` (or CR/LF) can break out of the quoted
// string. Anything else becomes a space; scopes are already restricted by the config schema.
function quote(value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ')}"`;
}

// Who is calling: built once per request by the identity ring (API key or OAuth bearer JWT,
// or the configured anonymous principal) and carried on the Call. Policy rules match on
// subject, groups and raw claims; `authContext` keys `private` caches (MCP 2026-07-28, server/utilities/caching).
import type { JsonObject } from '../protocol/message.ts';

export interface Principal {
  /** Stable identifier: the JWT `sub`, or the API key's configured subject. */
  subject: string;
  /** Groups / roles, after the configured claim mapping. */
  groups: readonly string[];
  /** OAuth scopes granted (JWT `scope`/`scp`), empty for API keys unless configured. */
  scopes: readonly string[];
  /** Raw claims (JWT payload, or the API key's configured claims), for rules. */
  claims: Readonly<JsonObject>;
  /** How the caller authenticated. */
  method: 'api_key' | 'jwt' | 'anonymous' | 'none';
  /** Key for `private` caches: one per credential's authorization context. */
  authContext: string;
}

export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({
  subject: 'anonymous',
  groups: [],
  scopes: [],
  claims: {},
  method: 'anonymous',
  authContext: 'anonymous',
});

/** Stands in, in records only, for a caller refused before identity established who it is
 * (401, or an Origin or header-limit refusal that comes first). Never matched by policy. */
export const UNAUTHENTICATED_PRINCIPAL: Principal = Object.freeze({
  subject: '',
  groups: [],
  scopes: [],
  claims: {},
  method: 'none',
  authContext: 'unauthenticated',
});

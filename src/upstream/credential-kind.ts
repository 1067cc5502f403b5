// Which kind of credential the gateway presents to an upstream, for audit records and spans:
// `user` (the calling user's own token, auth type user), `exchange` (a token exchanged for
// the caller's, RFC 8693), `service` (the gateway's own: client credentials, a configured
// Authorization header or header files) or `none`. The kind only, never the value (pure).
import type { UpstreamConfig } from '../config/types.ts';

export type CredentialKind = 'user' | 'exchange' | 'service' | 'none';

/** Asked on every call: an upstream's configuration is read once. */
const known = new WeakMap<UpstreamConfig, CredentialKind>();

export function credentialKind(config: UpstreamConfig): CredentialKind {
  let kind = known.get(config);
  if (kind === undefined) known.set(config, (kind = kindOf(config)));
  return kind;
}

function kindOf(config: UpstreamConfig): CredentialKind {
  if (config.kind === 'stdio') return 'none';
  if (config.userAuth !== undefined) return 'user';
  if (config.tokenExchange !== undefined) return 'exchange';
  // Tolerant of partial configs (unit tests build them by hand); loaded ones are fully defaulted.
  if (config.auth !== undefined || (config.headerFiles?.length ?? 0) > 0) return 'service';
  return Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization') ? 'service' : 'none';
}

// Reads an upstream's `WWW-Authenticate: Bearer ...` challenge (RFC 6750 section 3, RFC 9110
// section 11.6.1 auth-params) for what per-user authorization needs from it: where the
// protected-resource metadata is (RFC 9728 section 5.1 `resource_metadata`) and which scopes
// the resource asks for (`scope`, as MCP 2025-11-25 basic/authorization, scope selection,
// says clients should use). Pure; other schemes and malformed params are ignored.

export interface BearerChallenge {
  resourceMetadata: string | undefined;
  scope: string | undefined;
  error: string | undefined;
}

// auth-param = token BWS "=" BWS ( token / quoted-string )
const PARAM = /([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z-/=]+))/gy;

/** The first Bearer challenge in `header` (one or more header values), if any. */
export function parseBearerChallenge(header: string | readonly string[] | undefined): BearerChallenge | undefined {
  const text = Array.isArray(header) ? header.join(', ') : (header as string | undefined);
  if (text === undefined) return undefined;
  const at = text.search(/(^|[\s,])Bearer(\s|$)/i);
  if (at < 0) return undefined;
  const start = text.toLowerCase().indexOf('bearer', at) + 'bearer'.length;
  const params = new Map<string, string>();
  let i = start;
  for (;;) {
    while (i < text.length && /[\s,]/.test(text[i] as string)) i++;
    PARAM.lastIndex = i;
    const m = PARAM.exec(text);
    if (m === null) break;
    const name = (m[1] as string).toLowerCase();
    const value = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] as string);
    if (!params.has(name)) params.set(name, value);
    i = PARAM.lastIndex;
  }
  return { resourceMetadata: params.get('resource_metadata'), scope: params.get('scope'), error: params.get('error') };
}

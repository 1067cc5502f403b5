// The upstream's own credentials (upstream-credentials.ts) on every exchange. A 401 is
// answered once: the rejected credentials are dropped and the request is sent again with fresh
// ones (RFC 6750 section 3.1 invalid_token; a 401 means the request was not processed, so this
// is safe even for tools/call). Headers the gateway computes (Mcp-*, framing) are merged last
// and always win. The client's own credentials never get here: nothing forwards them.
import type { ExchangeInterceptor } from './exchange-interceptor.ts';
import type { UpstreamCredentials } from './upstream-credentials.ts';

const UNAUTHORIZED = 401;

export function credentialsInterceptor(credentials: UpstreamCredentials | undefined): ExchangeInterceptor {
  if (credentials === undefined) return (next) => next;
  return (next) => async (input) => {
    for (let attempt = 1; ; attempt++) {
      const sent = await credentials.headers();
      if (!sent.ok) return { kind: 'credentials_failed', error: sent.error };
      const outcome = await next({ ...input, headers: { ...sent.value, ...input.headers } });
      if (attempt > 1 || outcome.kind !== 'http_error' || outcome.status !== UNAUTHORIZED) return outcome;
      if (!(await credentials.rejected(sent.value))) return outcome;
    }
  };
}

/** `headers` with the current credentials under them, for requests outside an exchange
 * (DELETE); without credentials when they cannot be had, as nothing waits for the answer. */
export async function withCredentials(credentials: UpstreamCredentials | undefined, headers: Readonly<Record<string, string>>): Promise<Readonly<Record<string, string>>> {
  const sent = await credentials?.headers();
  return sent?.ok ? { ...sent.value, ...headers } : headers;
}

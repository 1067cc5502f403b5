// Whether the person who opened a consent link is the gateway user it was made for. MCP
// 2025-11-25 (client/elicitation, URL mode, security considerations) and 2026-07-28 say the
// server MUST verify that the user who opens the URL is the user who triggered the request:
// otherwise an attacker forwards their own link, the victim consents at the upstream, and the
// victim's upstream token lands in the attacker's vault slot. The browser presents the gateway
// credential (API key or bearer token) as any client does; the gateway's own authenticate()
// decides who that is, and the authorization context must be the ticket's principal.
import type { Authenticate } from '../identity/authenticate.ts';
import type { RequestHeaders } from '../identity/bearer-credentials.ts';
import type { Principal } from '../identity/principal.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { ConsentTicket } from './consent-state.ts';

export interface ConsentUserRefusal {
  status: 400 | 401 | 403 | 503;
  /** For the response body and the audit record. */
  error: 'not_signed_in' | 'sign_in_failed' | 'other_user';
  /** Safe to show and to log: names gateway users, never a credential. */
  message: string;
  /** Who signed in, when someone did (the audit record names them). */
  signedIn?: Principal;
}

export async function checkConsentUser(authenticate: Authenticate, headers: RequestHeaders, ticket: ConsentTicket): Promise<Result<Principal, ConsentUserRefusal>> {
  const auth = await authenticate(headers);
  if (!auth.ok) {
    if (auth.error.error === 'missing_credentials') return err({ status: 401, error: 'not_signed_in', message: 'sign in with your gateway API key or token first' });
    return err({ status: auth.error.status, error: 'sign_in_failed', message: auth.error.description });
  }
  // Nobody is given a consent link without signing in (consent-access.ts), so an anonymous
  // request never matches one.
  if (auth.value.method === 'anonymous') return err({ status: 401, error: 'not_signed_in', message: 'sign in with your gateway API key or token first' });
  if (auth.value.authContext !== ticket.principal) {
    return err({
      status: 403,
      error: 'other_user',
      message: `This link was made for the gateway user "${ticket.subject}", but you signed in as "${auth.value.subject}": nothing was connected. Do not use consent links that someone else sent you; call the tool from your own client for a link of your own.`,
      signedIn: auth.value,
    });
  }
  return ok(auth.value);
}

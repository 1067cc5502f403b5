// The `consent` way of reaching an upstream as each user (user-access.ts): the user's own
// tokens from the vault (user-tokens.ts); without one, a call answers consent_required with
// a consent link sealed for this principal (user-authorization.ts).
import { err } from '../protocol/result.ts';
import { consentElicitationId } from './consent-answer.ts';
import type { UserAccess } from './user-access.ts';
import type { UserAuthorization } from './user-authorization.ts';
import type { UserTokens } from './user-tokens.ts';

/** What /readyz and the log say of such an upstream. */
export const CONSENT_NOTE = 'reached as each calling user with their own token; a caller who has not connected their account is asked to consent';

export function consentAccess(tokens: UserTokens, authorization: UserAuthorization): UserAccess {
  return {
    kind: 'consent',
    note: CONSENT_NOTE,
    ready: (upstream) => authorization.discovery(upstream),
    current: (authContext, upstream) => tokens.current(authContext, upstream),
    rejected: (authContext, upstream, sent) => tokens.rejected(authContext, upstream, sent),
    missing(caller, upstream) {
      if (caller === undefined || caller.method === 'anonymous') {
        return err({ kind: 'upstream_unavailable', upstream, reason: 'this upstream is reached as each user: authenticate to the gateway first (anonymous callers cannot connect an account)' });
      }
      const url = authorization.consentLink(caller.authContext, caller.subject ?? caller.authContext, upstream);
      return err({ kind: 'consent_required', upstream, url, elicitationId: consentElicitationId(upstream, caller.authContext), elicit: false });
    },
  };
}

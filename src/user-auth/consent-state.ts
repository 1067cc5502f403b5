// The two pieces of state a consent carries through the browser, sealed (AES-GCM,
// approvals/sealed-token.ts) so that nobody can read or change them:
// - the *ticket* in the consent link the caller's MCP client shows: who asked (the
//   principal's authorization context), for which upstream, until when;
// - the OAuth `state` sent to the authorization server (RFC 6749 section 10.12): the same,
//   plus the PKCE verifier (RFC 7636), the client and endpoints used, and the hash of a
//   random value kept in a cookie of the browser that started, so the callback is accepted
//   only in that browser. Each seals under a context of its own: one never opens as the other.
// Single use (the callback's nonce) is the caller's, against the token store.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Sealer } from '../approvals/sealed-token.ts';
import { err, ok, type Result } from '../protocol/result.ts';

const TICKET_CONTEXT = 'user-consent-ticket-v1';
const STATE_CONTEXT = 'user-consent-state-v1';

export interface ConsentTicket {
  /** The principal's authorization context (the vault key). */
  principal: string;
  /** Shown on the consent page so the person can tell whether the link is theirs. */
  subject: string;
  upstream: string;
  expiresAt: number;
}

export interface AuthorizationState {
  principal: string;
  subject: string;
  upstream: string;
  expiresAt: number;
  nonce: string;
  verifier: string;
  /** sha256 (base64url) of the browser's binding cookie. */
  binding: string;
  clientId: string;
  issuer: string;
  tokenEndpoint: string;
  resource: string;
  scope: string | undefined;
}

export function sealTicket(sealer: Sealer, t: ConsentTicket): string {
  return sealer.seal({ p: t.principal, s: t.subject, u: t.upstream, e: t.expiresAt }, TICKET_CONTEXT);
}

export function openTicket(sealer: Sealer, text: string, now: number): Result<ConsentTicket, string> {
  const o = sealer.unseal(text, TICKET_CONTEXT);
  if (!o.ok) return err(o.error === 'malformed' ? 'the consent link is malformed' : 'the consent link is not valid (changed, or sealed with a key no longer configured)');
  const v = o.value as Record<string, unknown>;
  if (typeof v.p !== 'string' || typeof v.u !== 'string' || typeof v.e !== 'number' || typeof v.s !== 'string') return err('the consent link is not valid');
  if (v.e <= now) return err('the consent link has expired: call the tool again for a new one');
  return ok({ principal: v.p, subject: v.s, upstream: v.u, expiresAt: v.e });
}

export function sealState(sealer: Sealer, s: AuthorizationState): string {
  return sealer.seal({ ...s, scope: s.scope ?? null }, STATE_CONTEXT);
}

export function openState(sealer: Sealer, text: string, now: number): Result<AuthorizationState, string> {
  const o = sealer.unseal(text, STATE_CONTEXT);
  if (!o.ok) return err('the state is not valid (changed, or not issued by this gateway)');
  const v = o.value as Record<string, unknown>;
  const strings = ['principal', 'subject', 'upstream', 'nonce', 'verifier', 'binding', 'clientId', 'issuer', 'tokenEndpoint', 'resource'];
  if (strings.some((k) => typeof v[k] !== 'string') || typeof v.expiresAt !== 'number') return err('the state is not valid');
  if (v.expiresAt <= now) return err('the authorization took too long and has expired: start again');
  return ok({ ...(v as unknown as AuthorizationState), scope: typeof v.scope === 'string' ? v.scope : undefined });
}

export function newBinding(): { cookie: string; hash: string } {
  const cookie = randomBytes(32).toString('base64url');
  return { cookie, hash: bindingHash(cookie) };
}

export function bindingHash(cookie: string): string {
  return createHash('sha256').update(cookie, 'utf8').digest('base64url');
}

/** Constant time: the comparison says nothing about how much of the hash matched. */
export function bindingMatches(cookie: string | undefined, hash: string): boolean {
  if (cookie === undefined) return false;
  const a = Buffer.from(bindingHash(cookie));
  const b = Buffer.from(hash);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

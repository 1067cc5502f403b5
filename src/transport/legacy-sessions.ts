// Legacy (2025-11-25) sessions. The session's state (negotiated version, client
// capabilities and info) travels sealed inside the Mcp-Session-Id itself (AES-256-GCM), so
// any replica sharing the secret can serve any request (docs/architecture.md §5). What a replica keeps
// in memory is only what cannot travel: open GET streams, the log level, deletions and
// idle times, and only for ids that have been used: initialize itself leaves nothing behind.
// An id that does not unseal, was deleted, or sat idle too long gets 404. What is kept is
// capped overall and per principal (limits.maxSessions, maxSessionsPerPrincipal): past a cap,
// initialize and the first use of a new id get 503 with Retry-After, and nothing is kept.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { Slots } from '../limits/slots.ts';

export interface LegacySession {
  id: string;
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
  logLevel?: string;
  /** Authorization context of the principal that initialized it (a digest of a long one,
   * see sealedOwner); nobody else may use it. */
  owner: string;
  /** The virtual server it was initialized on (undefined: the default endpoint); it is
   * unknown on every other endpoint. */
  server?: string;
}

type Sealed = Omit<LegacySession, 'id' | 'logLevel'> & { issuedAt: number };

interface Local {
  lastSeen: number;
  logLevel?: string;
  /** The unsealed state, so a busy session is decrypted once, not on every request. */
  state?: Sealed;
  /** What `open` hands out, made once per state and log level (the session frozen: every
   * request of the session shares it). */
  opened?: Result<LegacySession, GatewayError>;
}

const MAX_SESSION_ID_LENGTH = 4096;
/** The id is base64url (4 characters per 3 bytes) of IV (12) + tag (16) + sealed JSON. */
const MAX_SEALED_BYTES = (MAX_SESSION_ID_LENGTH / 4) * 3 - 28;
/** What a client may put in a session: its capabilities and clientInfo, as JSON. The rest
 * of the sealed JSON is at most 74 bytes plus the owner (at most 2 + 6 × 128 as JSON), so any
 * session within this limit fits the id length that get() accepts. */
export const MAX_CLIENT_STATE_BYTES = 2048;
/** Longer authorization contexts (a JWT subject can be anything) are sealed as a digest. */
const MAX_PLAIN_OWNER_LENGTH = 128;
/** Absolute lifetime of a session id; deletions are remembered until the id would have
 * expired anyway, so a deleted id can never come back once its memory is swept. */
export const SESSION_MAX_LIFETIME_MS = 24 * 60 * 60_000;

/** The owner as sealed in an id: the authorization context itself, or a digest of a long one. */
export function sealedOwner(authContext: string): string {
  return authContext.length <= MAX_PLAIN_OWNER_LENGTH ? authContext : `sha256:${createHash('sha256').update(authContext).digest('base64url')}`;
}

/** A fixed-size key for a deleted id (128 bits of its SHA-256): ids can be 4 KB long. */
function deletedKey(id: string): string {
  return createHash('sha256').update(id).digest().toString('base64url', 0, 16);
}

export interface SessionCaps {
  maxSessions: number;
  maxSessionsPerPrincipal: number;
}

const UNCAPPED: SessionCaps = { maxSessions: Number.POSITIVE_INFINITY, maxSessionsPerPrincipal: Number.POSITIVE_INFINITY };
const NOT_FOUND: Result<never, GatewayError> = err({ kind: 'session_not_found' });

export class LegacySessions {
  private readonly key: Buffer;
  private readonly slots: Slots;
  private readonly retryAfterMs: number;
  private readonly local = new Map<string, Local>();
  /** Digests of deleted or expired ids, with when they stop mattering. */
  private readonly deleted = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly removed: ((id: string) => void)[] = [];
  private inUse: ((id: string) => boolean) | undefined;

  constructor(
    secret: Buffer | undefined,
    private readonly idleTimeoutMs: number,
    private readonly now: () => number = Date.now,
    caps: SessionCaps = UNCAPPED,
  ) {
    this.key = secret ?? randomBytes(32);
    this.slots = new Slots(caps.maxSessions, caps.maxSessionsPerPrincipal);
    // Sessions free up as idle ones are swept: that is when to come back.
    this.retryAfterMs = Math.min(idleTimeoutMs, 60_000);
    this.sweeper = setInterval(() => this.sweep(), this.retryAfterMs);
    this.sweeper.unref();
  }

  /** New caps (a config reload): sessions already held stay; only new ones see the caps. */
  resize(caps: SessionCaps): void {
    this.slots.resize(caps.maxSessions, caps.maxSessionsPerPrincipal);
  }

  /** Seals a new session into its id. Refused when the client's capabilities and clientInfo
   * would not fit an id (MAX_CLIENT_STATE_BYTES). Nothing is kept until the id is used. */
  create(protocolVersion: string, clientCapabilities: JsonObject, clientInfo: JsonObject | undefined, owner: string, server?: string): Result<LegacySession, GatewayError> {
    const c = JSON.stringify(clientCapabilities);
    const i = clientInfo ? JSON.stringify(clientInfo) : 'null';
    const clientBytes = Buffer.byteLength(c) + Buffer.byteLength(i);
    if (clientBytes > MAX_CLIENT_STATE_BYTES) {
      return err({
        kind: 'invalid_params',
        message: `initialize: capabilities and clientInfo take ${clientBytes} bytes as JSON; a session holds at most ${MAX_CLIENT_STATE_BYTES}`,
        data: { limit: MAX_CLIENT_STATE_BYTES, size: clientBytes },
      });
    }
    const sealedBy = sealedOwner(owner);
    const full = this.full(sealedBy);
    if (full) return err(full);
    // The server name is config (a short name), so the id length bound above still holds.
    const bound = server === undefined ? '' : `,"s":${JSON.stringify(server)}`;
    const payload = `{"v":${JSON.stringify(protocolVersion)},"c":${c},"i":${i},"o":${JSON.stringify(sealedBy)}${bound},"t":${this.now()},"n":"${randomBytes(8).toString('hex')}"}`;
    // Unreachable while the limits above hold; an id past the cap would be refused forever.
    if (Buffer.byteLength(payload) > MAX_SEALED_BYTES) throw new Error(`sealed session state of ${Buffer.byteLength(payload)} bytes exceeds ${MAX_SEALED_BYTES}`);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(payload, 'utf8'), cipher.final()]);
    // base64url is visible ASCII (0x21-0x7E), as 2025-11-25 requires of session ids.
    const id = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    return ok({ id, protocolVersion, clientCapabilities, owner: sealedBy, ...(clientInfo ? { clientInfo } : {}), ...(server === undefined ? {} : { server }) });
  }

  get(id: string): LegacySession | undefined {
    const s = this.open(id);
    return s.ok ? s.value : undefined;
  }

  /** The session of an id: session_not_found for an unknown, deleted or idle one, and
   * over_capacity when it would be a new one past a cap (nothing is then kept for it). */
  open(id: string): Result<LegacySession, GatewayError> {
    if (id.length > MAX_SESSION_ID_LENGTH) return NOT_FOUND;
    const t = this.now();
    const local = this.local.get(id);
    if (local && this.idle(id, local, t)) {
      this.remove(id);
      return NOT_FOUND;
    }
    // Only an id without local memory can be a deleted one: remove() drops that memory, and
    // it is made again only past this check. So a busy session pays no digest.
    if (!local && this.deleted.size > 0 && this.deleted.has(deletedKey(id))) return NOT_FOUND;
    const state = local?.state ?? this.unseal(id);
    if (!state || t - state.issuedAt > SESSION_MAX_LIFETIME_MS) return NOT_FOUND;
    if (local) {
      local.lastSeen = t;
      if (local.opened !== undefined && local.state === state) return local.opened;
      local.state = state;
    } else {
      if (this.slots.take(state.owner) !== undefined) return err(this.full(state.owner)!);
      this.local.set(id, { lastSeen: t, state });
    }
    const { issuedAt: _, ...session } = state;
    const opened = ok(Object.freeze({ id, ...session, ...(local?.logLevel ? { logLevel: local.logLevel } : {}) }));
    if (local) local.opened = opened;
    return opened;
  }

  /** The refusal for one more session of this owner, if a cap is full. */
  private full(owner: string): GatewayError | undefined {
    const cap = this.slots.check(owner);
    if (cap === undefined) return undefined;
    const limit = cap === 'total' ? 'maxSessions' : 'maxSessionsPerPrincipal';
    const message =
      cap === 'total'
        ? `The gateway holds as many legacy sessions as it may (limits.maxSessions); try again later`
        : `This principal holds as many legacy sessions as it may (limits.maxSessionsPerPrincipal); end one (DELETE) or try again later`;
    return { kind: 'over_capacity', limit, message, retryAfterMs: this.retryAfterMs };
  }

  /** The level the session asked for (logging/setLevel), without counting as a use of it. */
  logLevelOf(id: string): string | undefined {
    return this.local.get(id)?.logLevel;
  }

  setLogLevel(id: string, level: string): void {
    const local = this.local.get(id);
    if (local) {
      local.logLevel = level;
      local.opened = undefined;
    }
  }

  /** Ends a session here (DELETE, idle): its id gets 404 from now on. */
  remove(id: string): void {
    const local = this.local.get(id);
    this.local.delete(id);
    if (local?.state) this.slots.release(local.state.owner);
    // Remembered until the id would have expired anyway (the issue time is known whenever the
    // id was used here; otherwise the longest it could still be valid).
    const issuedAt = local?.state?.issuedAt ?? this.now();
    this.deleted.set(deletedKey(id), issuedAt + SESSION_MAX_LIFETIME_MS);
    for (const fn of this.removed) fn(id);
  }

  /** Called with the id of every session that ends here, so its streams (and whatever else
   * lives per session) can go. */
  onRemoved(fn: (id: string) => void): void {
    this.removed.push(fn);
  }

  /** A session for which `fn` is true (an open GET stream) is never idle, however quiet. */
  busyWhile(fn: (id: string) => boolean): void {
    this.inUse = fn;
  }

  private idle(id: string, local: Local, t: number): boolean {
    if (t - local.lastSeen <= this.idleTimeoutMs) return false;
    if (this.inUse?.(id) !== true) return true;
    local.lastSeen = t;
    return false;
  }

  size(): number {
    return this.local.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private unseal(id: string): Sealed | undefined {
    try {
      const raw = Buffer.from(id, 'base64url');
      if (raw.length < 29) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      const p: unknown = JSON.parse(text);
      if (!isJsonObject(p) || typeof p.v !== 'string' || !isJsonObject(p.c) || typeof p.t !== 'number' || typeof p.o !== 'string') return undefined;
      return { protocolVersion: p.v, clientCapabilities: p.c, owner: p.o, issuedAt: p.t, ...(isJsonObject(p.i) ? { clientInfo: p.i } : {}), ...(typeof p.s === 'string' ? { server: p.s } : {}) };
    } catch {
      return undefined;
    }
  }

  private sweep(): void {
    const t = this.now();
    for (const [id, l] of this.local) if (this.idle(id, l, t)) this.remove(id);
    for (const [key, until] of this.deleted) if (t > until) this.deleted.delete(key);
  }
}

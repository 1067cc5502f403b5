// Legacy (2025-11-25) sessions. The session's state (negotiated version, client
// capabilities and info) travels sealed inside the Mcp-Session-Id itself (AES-256-GCM), so
// any replica sharing the secret can serve any request (design.md §5). What a replica keeps
// in memory is only what cannot travel: open GET streams, the log level, deletions and
// idle times. An id that does not unseal, was deleted, or sat idle too long gets 404.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { JsonObject } from '../jsonrpc/message.ts';
import { isJsonObject } from '../jsonrpc/message.ts';

export interface LegacySession {
  id: string;
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
  logLevel?: string;
  /** Authorization context of the principal that initialized it; nobody else may use it. */
  owner: string;
}

type Sealed = Omit<LegacySession, 'id' | 'logLevel'> & { issuedAt: number };

interface Local {
  lastSeen: number;
  logLevel?: string;
  /** The unsealed state, so a busy session is decrypted once, not on every request. */
  state?: Sealed;
}

const MAX_SESSION_ID_LENGTH = 4096;
/** Absolute lifetime of a session id; deletions are remembered at least this long, so a
 * deleted id can never come back once its memory is swept. */
export const SESSION_MAX_LIFETIME_MS = 24 * 60 * 60_000;

export class LegacySessions {
  private readonly key: Buffer;
  private readonly local = new Map<string, Local>();
  private readonly deleted = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    secret: Buffer | undefined,
    private readonly idleTimeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.key = secret ?? randomBytes(32);
    this.sweeper = setInterval(() => this.sweep(), Math.min(idleTimeoutMs, 60_000));
    this.sweeper.unref();
  }

  create(protocolVersion: string, clientCapabilities: JsonObject, clientInfo: JsonObject | undefined, owner: string): LegacySession {
    const issuedAt = this.now();
    const payload = JSON.stringify({ v: protocolVersion, c: clientCapabilities, i: clientInfo ?? null, o: owner, t: issuedAt, n: randomBytes(8).toString('hex') });
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(payload, 'utf8'), cipher.final()]);
    // base64url is visible ASCII (0x21-0x7E), as 2025-11-25 requires of session ids.
    const id = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    const state: Sealed = { protocolVersion, clientCapabilities, owner, issuedAt, ...(clientInfo ? { clientInfo } : {}) };
    this.local.set(id, { lastSeen: issuedAt, state });
    return { id, protocolVersion, clientCapabilities, owner, ...(clientInfo ? { clientInfo } : {}) };
  }

  get(id: string): LegacySession | undefined {
    if (id.length > MAX_SESSION_ID_LENGTH || this.deleted.has(id)) return undefined;
    const t = this.now();
    const local = this.local.get(id);
    if (local && t - local.lastSeen > this.idleTimeoutMs) {
      this.remove(id);
      return undefined;
    }
    const state = local?.state ?? this.unseal(id);
    if (!state || t - state.issuedAt > SESSION_MAX_LIFETIME_MS) return undefined;
    if (local) {
      local.lastSeen = t;
      local.state = state;
    } else this.local.set(id, { lastSeen: t, state });
    const { issuedAt: _, ...session } = state;
    return { id, ...session, ...(local?.logLevel ? { logLevel: local.logLevel } : {}) };
  }

  setLogLevel(id: string, level: string): void {
    const local = this.local.get(id);
    if (local) local.logLevel = level;
  }

  remove(id: string): void {
    this.local.delete(id);
    this.deleted.set(id, this.now());
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
      return { protocolVersion: p.v, clientCapabilities: p.c, owner: p.o, issuedAt: p.t, ...(isJsonObject(p.i) ? { clientInfo: p.i } : {}) };
    } catch {
      return undefined;
    }
  }

  private sweep(): void {
    const t = this.now();
    for (const [id, l] of this.local) if (t - l.lastSeen > this.idleTimeoutMs) this.remove(id);
    for (const [id, at] of this.deleted) if (t - at > SESSION_MAX_LIFETIME_MS) this.deleted.delete(id);
  }
}

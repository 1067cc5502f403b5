import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../protocol/message.ts';
import { LegacySessions, MAX_CLIENT_STATE_BYTES, SESSION_MAX_LIFETIME_MS, sealedOwner } from './legacy-sessions.ts';

const open: LegacySessions[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));

function sessions(idleMs = 60_000, clock = { t: 1_000_000 }) {
  const s = new LegacySessions(Buffer.alloc(32, 7), idleMs, () => clock.t);
  open.push(s);
  return s;
}

/** The private memory of deletions, to check what it holds. */
const deletedOf = (s: LegacySessions) => (s as unknown as { deleted: Map<string, number> }).deleted;
const sweep = (s: LegacySessions) => (s as unknown as { sweep(): void }).sweep();

function created(s: LegacySessions, caps: JsonObject = {}, owner = 'anonymous') {
  const r = s.create('2025-11-25', caps, { name: 'c', version: '1' }, owner);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

describe('LegacySessions', () => {
  it('hands a busy session out as one frozen object, made again when its log level changes', () => {
    const s = sessions();
    const { id } = created(s);
    s.get(id);
    const first = s.get(id)!;
    expect(Object.isFrozen(first)).toBe(true);
    expect(s.get(id)).toBe(first);
    s.setLogLevel(id, 'debug');
    const after = s.get(id)!;
    expect(after).not.toBe(first);
    expect(after).toMatchObject({ id, logLevel: 'debug', owner: 'anonymous' });
    expect(first.logLevel).toBeUndefined();
  });

  it('keeps nothing for an id until it is used', () => {
    const s = sessions();
    const { id } = created(s);
    expect(s.size()).toBe(0);
    expect(s.get(id)).toMatchObject({ id, protocolVersion: '2025-11-25', clientInfo: { name: 'c', version: '1' }, owner: 'anonymous' });
    expect(s.size()).toBe(1);
  });

  it('issues ids within the length get() accepts, for clients at the limit and owners of any length', () => {
    const s = sessions();
    const info = { name: 'c', version: '1' };
    const caps = { x: '\u{1F600}'.repeat((MAX_CLIENT_STATE_BYTES - JSON.stringify({ x: '' }).length - JSON.stringify(info).length) / 4) };
    // The longest owner sealed as it is, of control characters (six bytes each as JSON), and
    // a long one, sealed as a digest.
    for (const owner of ['\u0001'.repeat(128), `jwt:https://issuer.example:${'s'.repeat(5000)}`]) {
      const { id } = created(s, caps, owner);
      expect(id.length).toBeLessThanOrEqual(4096);
      const back = s.get(id)!;
      expect(back.owner).toBe(sealedOwner(owner));
      expect(back.owner).not.toBe(sealedOwner(`${owner}x`));
      expect(back.clientCapabilities).toEqual(caps);
    }
    expect(sealedOwner('\u0001'.repeat(128))).toBe('\u0001'.repeat(128));
  });

  it('refuses client state over the limit with invalid params naming it', () => {
    const r = sessions().create('2025-11-25', { x: 'y'.repeat(MAX_CLIENT_STATE_BYTES) }, undefined, 'anonymous');
    expect(r).toMatchObject({ ok: false, error: { kind: 'invalid_params', message: expect.stringContaining(`at most ${MAX_CLIENT_STATE_BYTES}`) } });
  });

  it('remembers a deletion in fixed-size memory until the id would have expired anyway', () => {
    const clock = { t: 1_000_000 };
    const s = sessions(60_000, clock);
    const removed: string[] = [];
    s.onRemoved((id) => removed.push(id));
    const { id } = created(s, { x: 'y'.repeat(1500) });
    s.get(id);
    s.remove(id);
    expect(removed).toEqual([id]);
    expect(s.get(id)).toBeUndefined();
    expect([...deletedOf(s).keys()].map((k) => k.length)).toEqual([22]);
    clock.t += SESSION_MAX_LIFETIME_MS + 1;
    sweep(s);
    expect(deletedOf(s).size).toBe(0);
    expect(s.get(id)).toBeUndefined();
  });

  it('ends idle sessions, tells who listens, and refuses their ids from then on', () => {
    const clock = { t: 1_000_000 };
    const s = sessions(1000, clock);
    const removed: string[] = [];
    s.onRemoved((id) => removed.push(id));
    const { id } = created(s);
    s.get(id);
    clock.t += 1001;
    sweep(s);
    expect(removed).toEqual([id]);
    expect(s.size()).toBe(0);
    expect(s.get(id)).toBeUndefined();
  });
  it('never ends a session that is in use (an open GET stream), however long it is quiet', () => {
    const clock = { t: 1_000_000 };
    const s = sessions(1000, clock);
    const removed: string[] = [];
    s.onRemoved((id) => removed.push(id));
    let streaming = true;
    s.busyWhile(() => streaming);
    const { id } = created(s);
    s.get(id);
    clock.t += 5000;
    sweep(s);
    expect(removed).toEqual([]);
    expect(s.get(id)?.id).toBe(id);
    streaming = false;
    clock.t += 1001;
    sweep(s);
    expect(removed).toEqual([id]);
    expect(s.get(id)).toBeUndefined();
  });

  it('holds at most maxSessions, and maxSessionsPerPrincipal per owner; an idle one frees its place', () => {
    const clock = { t: 1_000_000 };
    const s = new LegacySessions(Buffer.alloc(32, 7), 1000, () => clock.t, { maxSessions: 3, maxSessionsPerPrincipal: 2 });
    open.push(s);
    const a1 = created(s, {}, 'key:alice');
    const a2 = created(s, {}, 'key:alice');
    const a3 = created(s, {}, 'key:alice');
    expect(s.open(a1.id).ok).toBe(true);
    expect(s.open(a2.id).ok).toBe(true);
    // Handed out while there was room, refused at first use once the owner's share is full.
    const late = s.open(a3.id);
    expect(!late.ok && late.error).toMatchObject({ kind: 'over_capacity', limit: 'maxSessionsPerPrincipal', retryAfterMs: 1000 });
    expect(s.size()).toBe(2);
    const refused = s.create('2025-11-25', {}, undefined, 'key:alice');
    expect(!refused.ok && refused.error).toMatchObject({ kind: 'over_capacity', limit: 'maxSessionsPerPrincipal' });
    expect(s.open(created(s, {}, 'key:bob').id).ok).toBe(true);
    const full = s.create('2025-11-25', {}, undefined, 'key:carol');
    expect(!full.ok && full.error).toMatchObject({ kind: 'over_capacity', limit: 'maxSessions' });
    // Known sessions keep working at the cap.
    expect(s.open(a1.id).ok).toBe(true);
    clock.t += 1001;
    sweep(s);
    expect(s.size()).toBe(0);
    expect(s.open(a3.id).ok).toBe(true);
  });
});

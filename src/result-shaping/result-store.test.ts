import { describe, expect, it } from 'vitest';
import { createResultStore } from './result-store.ts';

const part = (bytes: number, fill = 'x') => ({ mimeType: 'text/plain', encoding: 'text' as const, data: Buffer.from(fill.repeat(bytes)) });

describe('result store', () => {
  it('returns a kept part to its owner and to nobody else', () => {
    const store = createResultStore({ ttlMs: 1000, maxBytes: 10_000, maxEntryBytes: 1000 });
    const id = store.put('key:alice', part(10))!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(store.get('key:alice', id)?.data.toString()).toBe('x'.repeat(10));
    expect(store.get('key:bob', id)).toBeUndefined();
    expect(store.get('key:alice', 'A'.repeat(22))).toBeUndefined();
  });

  it('forgets a part once its ttl has passed on the injected clock', () => {
    let now = 1_000_000;
    const store = createResultStore({ ttlMs: 1000, maxBytes: 10_000, maxEntryBytes: 1000 }, () => now);
    const id = store.put('o', part(10))!;
    now += 999;
    expect(store.get('o', id)).toBeDefined();
    now += 2;
    expect(store.get('o', id)).toBeUndefined();
  });

  it('refuses a part over maxEntryBytes, and evicts the least recently used past maxBytes', () => {
    const store = createResultStore({ ttlMs: 60_000, maxBytes: 3 * (1000 + 256 + 1), maxEntryBytes: 1000 });
    expect(store.put('o', part(1001))).toBeUndefined();
    const a = store.put('o', part(1000, 'a'))!;
    const b = store.put('o', part(1000, 'b'))!;
    const c = store.put('o', part(1000, 'c'))!;
    expect(store.get('o', a)).toBeDefined(); // a is now the most recently used
    const d = store.put('o', part(1000, 'd'))!;
    expect(store.get('o', b)).toBeUndefined();
    expect([a, c, d].every((id) => store.get('o', id) !== undefined)).toBe(true);
    expect(store.stats().bytes).toBeLessThanOrEqual(3 * (1000 + 256 + 1));
    expect(store.stats().entries).toBe(3);
  });
});

import { describe, expect, it } from 'vitest';
import { hashKey, keyDigest, matchKeyHash, parseKeyHash } from '../../src/identity/hash-key.ts';

// sha256("abc"), FIPS 180-2 appendix B.1.
const ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

describe('hash-key', () => {
  it('hashes the UTF-8 bytes of a key to lower-case hex', () => {
    expect(hashKey('abc')).toBe(ABC);
    expect(keyDigest('abc').toString('hex')).toBe(ABC);
  });

  it('parses hex and sha256:<hex> in either case, and nothing else', () => {
    expect(parseKeyHash(ABC)?.toString('hex')).toBe(ABC);
    expect(parseKeyHash(`sha256:${ABC.toUpperCase()}`)?.toString('hex')).toBe(ABC);
    expect(parseKeyHash(ABC.slice(1))).toBeUndefined();
    expect(parseKeyHash(`sha1:${ABC}`)).toBeUndefined();
    expect(parseKeyHash('abc')).toBeUndefined();
  });

  it('compares against every configured digest whatever the position of the match', () => {
    const digests = ['a', 'b', 'c', 'd'].map(keyDigest);
    for (const [key, index] of [['a', 0], ['d', 3], ['zz', -1]] as const) {
      let comparisons = 0;
      const counted = (x: Buffer, y: Buffer): boolean => (comparisons++, x.equals(y));
      expect(matchKeyHash(keyDigest(key), digests, counted)).toBe(index);
      expect(comparisons).toBe(4);
    }
  });
});

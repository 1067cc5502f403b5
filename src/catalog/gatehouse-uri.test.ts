import { describe, expect, it } from 'vitest';
import { gatehouseUri, isGatehouseUri, parseGatehouseUri } from './gatehouse-uri.ts';

describe('gatehouse uri', () => {
  it('round-trips upstream names and uris with reserved and non-ASCII characters', () => {
    const cases: [string, string][] = [
      ['a', 'file:///tmp/x.txt'],
      ['up/with slash', 'https://h.example/p?q=1&r=%2F#f'],
      ['ü', 'custom:thing with spaces/ünïcode'],
      ['x', 'gatehouse://y/z'],
    ];
    for (const [upstream, original] of cases) {
      const uri = gatehouseUri(upstream, original);
      expect(uri.startsWith('gatehouse://')).toBe(true);
      expect(parseGatehouseUri(uri)).toEqual({ upstream, original });
    }
  });

  it('rejects malformed forms', () => {
    expect(parseGatehouseUri('gatehouse://a')).toBeUndefined();
    expect(parseGatehouseUri('gatehouse://a/')).toBeUndefined();
    expect(parseGatehouseUri('gatehouse:///x')).toBeUndefined();
    expect(parseGatehouseUri('gatehouse:a/x')).toBeUndefined();
    expect(parseGatehouseUri('gatehouse://a/%E0%A4%A')).toBeUndefined();
    expect(parseGatehouseUri('file:///a')).toBeUndefined();
  });

  it('recognises the scheme case-insensitively', () => {
    expect(isGatehouseUri('GATEHOUSE://a/b')).toBe(true);
    expect(parseGatehouseUri('GateHouse://a/b')).toEqual({ upstream: 'a', original: 'b' });
    expect(isGatehouseUri('gatehouses://a/b')).toBe(false);
  });
});

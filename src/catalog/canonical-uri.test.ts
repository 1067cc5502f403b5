import { describe, expect, it } from 'vitest';
import { canonicalUri, removeDotSegments } from './canonical-uri.ts';

const canon = (uri: string): string => {
  const r = canonicalUri(uri);
  if (!r.ok) throw new Error(`refused ${JSON.stringify(uri)}: ${r.error}`);
  return r.value;
};
const refusal = (uri: string): string | undefined => {
  const r = canonicalUri(uri);
  return r.ok ? undefined : r.error;
};

describe('canonicalUri', () => {
  it('brings every spelling of one resource to one form', () => {
    const spellings = [
      'mem://modern/only',
      'MEM://modern/only',
      'Mem://MODERN/only',
      'mem://modern/./only',
      'mem://modern/x/../only',
      'mem://modern/x/y/../../only',
      'mem://modern/../only',
      'mem://modern:/only',
      'mem://modern:/./x/%2E%2E/only',
      'mem://%6Dodern/%6fnly',
      'mem://%6dodern/%6Fnly',
    ];
    for (const s of spellings) expect(canon(s), s).toBe('mem://modern/only');
  });

  it('applies the scheme-based rules of http(s) and file', () => {
    expect(canon('HTTP://Example.COM:80')).toBe('http://example.com/');
    expect(canon('https://example.com:443/a?b')).toBe('https://example.com/a?b');
    expect(canon('https://example.com:0443/a')).toBe('https://example.com/a');
    expect(canon('https://example.com:8443/a')).toBe('https://example.com:8443/a');
    expect(canon('file://localhost/etc/passwd')).toBe('file:///etc/passwd');
    expect(canon('FILE:///etc/./passwd')).toBe('file:///etc/passwd');
    // Their hosts as WHATWG reads them: IPv4 in any notation, IDNA.
    expect(canon('http://2130706433/admin')).toBe('http://127.0.0.1/admin');
    expect(canon('http://0x7f.1/admin')).toBe('http://127.0.0.1/admin');
    expect(canon('https://0177.0.0.1:443/')).toBe('https://127.0.0.1/');
    expect(canon('https://BÜCHER.example/')).toBe('https://xn--bcher-kva.example/');
    expect(refusal('http://a b/')).toBeDefined();
    expect(refusal('http://exa%00mple/')).toMatch(/host/);
    // Other schemes keep their host as written (lower-cased): WHATWG does not parse it.
    expect(canon('mem://2130706433/a')).toBe('mem://2130706433/a');
    // No default port outside the schemes that have one.
    expect(canon('mem://h:80/a')).toBe('mem://h:80/a');
  });

  it('normalises percent-encodings: upper case, unreserved decoded, the rest kept', () => {
    expect(canon('mem://h/a%2fb%3a%7E%41')).toBe('mem://h/a%2Fb%3A~A');
    expect(canon('mem://h/%25')).toBe('mem://h/%25');
  });

  it('encodes what a URI may not hold raw, as UTF-8', () => {
    expect(canon('mem://h/é')).toBe('mem://h/%C3%A9');
    expect(canon('mem://h/%c3%a9')).toBe('mem://h/%C3%A9');
    expect(canon('mem://h/a{b}"c"^|`')).toBe('mem://h/a%7Bb%7D%22c%22%5E%7C%60');
    expect(canon("https://h/p'?q='x'")).toBe("https://h/p'?q=%27x%27");
  });

  it('leaves an opaque path, the query and the fragment otherwise as they are', () => {
    expect(canon('urn:a/../b')).toBe('urn:a/../b');
    expect(canon('mem://h/a?x=/../y#/./z')).toBe('mem://h/a?x=/../y#/./z');
    expect(canon('mem://h')).toBe('mem://h');
    expect(canon('mem://[::1]:7/a')).toBe('mem://[::1]:7/a');
  });

  it('is idempotent', () => {
    for (const s of ['MEM://h/./a/%7e', 'https://H:443', 'mem://u%40x@h/é?\'#f']) expect(canon(canon(s))).toBe(canon(s));
  });

  it('refuses whitespace, controls, bidi and format characters anywhere, with the reason', () => {
    for (const s of [' mem://h/a', 'mem://h/a ', 'mem://h/a\tb', 'mem://h/a\nb', 'mem://h/\u0000', 'mem://h/\u0085', 'mem://h/\u00a0', 'mem://h/\u202eb', 'mem://h/\u200b', 'mem://h/\ufeff', 'mem://h/\u2028']) {
      expect(refusal(s), JSON.stringify(s)).toBe('the uri contains whitespace or a control character');
    }
  });

  it('refuses what WHATWG and RFC 3986 read differently or not at all', () => {
    expect(refusal('http://h/a\\..\\b')).toBe('the uri contains a backslash');
    expect(refusal('mem://h/%zz')).toBe('the uri contains a "%" that is not a percent-encoding');
    expect(refusal('mem://h/%4')).toBe('the uri contains a "%" that is not a percent-encoding');
    expect(refusal('/relative/path')).toMatch(/^not an absolute uri/);
    expect(refusal('')).toBe('the uri is empty');
    expect(refusal('mem://h:99999/')).toMatch(/port/);
    expect(refusal('mem://h:8x/')).toMatch(/port/);
    expect(refusal('mem://h/\ud800')).toBe('the uri contains a lone surrogate');
  });
});

describe('removeDotSegments', () => {
  it('follows RFC 3986 §5.2.4', () => {
    expect(removeDotSegments('/a/b/c/./../../g')).toBe('/a/g');
    expect(removeDotSegments('/mid/content=5/../6')).toBe('/mid/6');
    expect(removeDotSegments('/a/..')).toBe('/');
    expect(removeDotSegments('/a/.')).toBe('/a/');
    expect(removeDotSegments('/../../x')).toBe('/x');
    expect(removeDotSegments('/a//../b')).toBe('/a/b');
  });
});

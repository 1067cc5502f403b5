// The one spelling of a resource URI that routing and policy judge. Clients can write the same
// resource many ways (`MEM://modern/./only`, `mem://modern:/only`, `mem://modern/x/../only`,
// `mem://%6Dodern/only`), and an upstream that parses URIs (the official SDKs use WHATWG
// `new URL()`) serves all of them as one; a deny rule written for the listed spelling must
// catch every one. So URIs are brought to one form first (RFC 3986 §6.2.2 syntax-based and
// §6.2.3 scheme-based normalisation):
//
//   - scheme and host in lower case (§3.1, §3.2.2), percent-encodings in upper case (§2.1),
//     percent-encoded unreserved characters decoded (§2.3);
//   - characters a URI may not hold raw (non-ASCII, `"<>^`{|}`) percent-encoded as UTF-8
//     (RFC 3987 §3.1), and `'` in the query too, as WHATWG does for http(s) queries;
//   - dot segments removed from a path that starts with "/" (§5.2.4; an opaque path such as
//     `urn:a/../b` is left alone, as WHATWG leaves it);
//   - an empty port, or the scheme's default one, dropped; leading zeros of a port dropped;
//     an empty path after an authority is "/" for http(s), ws(s) and ftp; `file://localhost/`
//     is `file:///` (RFC 8089 §2).
//
// Refused outright, never guessed at: whitespace and control characters anywhere (WHATWG
// strips some and keeps others, so a trimmed and an untrimmed spelling would differ), bidi
// and other format controls, a backslash (WHATWG reads it as "/" in http(s) URLs), a `%`
// not followed by two hex digits, a lone surrogate, a relative reference, a port that is
// not a number up to 65535. The host of an http(s), ws(s), ftp or file uri is read as WHATWG
// reads it (IPv4 in any notation, IDNA), by the platform's own host parser. Pure.
import { err, ok, type Result } from '../protocol/result.ts';

/** Space, C0 and C1 controls, DEL, Unicode spaces, line/paragraph separators, BOM, bidi and
 * other invisible format controls, backslash. */
const REFUSED = /[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff\\]/u;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
// RFC 3986 Appendix B.
const PARTS = /^([^:/?#]+):(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$/s;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** What may stay raw in a URI: unreserved, reserved (gen-delims and sub-delims) and "%". */
const ALLOWED = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/;
const HIERARCHICAL_DEFAULTS: Readonly<Record<string, string>> = { http: '80', https: '443', ws: '80', wss: '443', ftp: '21' };

export type UriRefusal = string;

/** The canonical spelling of `uri`, or why it is refused. */
export function canonicalUri(uri: string): Result<string, UriRefusal> {
  if (uri === '') return err('the uri is empty');
  if (REFUSED.test(uri)) return err(uri.includes('\\') ? 'the uri contains a backslash' : 'the uri contains whitespace or a control character');
  if (LONE_SURROGATE.test(uri)) return err('the uri contains a lone surrogate');
  if (BAD_PERCENT.test(uri)) return err('the uri contains a "%" that is not a percent-encoding');
  const m = PARTS.exec(uri);
  if (m === null || !SCHEME.test(m[1]!)) return err('not an absolute uri (it needs a scheme, as in "file:///a" or "mem://a")');
  const scheme = m[1]!.toLowerCase();
  let out = `${scheme}:`;
  const hasAuthority = m[2] !== undefined;
  if (hasAuthority) {
    const authority = canonicalAuthority(m[3]!, scheme);
    if (!authority.ok) return authority;
    out += `//${authority.value}`;
  }
  let path = normalizeEncoding(m[4]!, '');
  if (path.startsWith('/')) path = removeDotSegments(path);
  if (hasAuthority && path === '' && scheme in HIERARCHICAL_DEFAULTS) path = '/';
  out += path;
  if (m[5] !== undefined) out += `?${normalizeEncoding(m[6]!, "'")}`;
  if (m[7] !== undefined) out += `#${normalizeEncoding(m[8]!, '')}`;
  return ok(out);
}

function canonicalAuthority(authority: string, scheme: string): Result<string, UriRefusal> {
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? undefined : normalizeEncoding(authority.slice(0, at), '@');
  const hostPort = authority.slice(at + 1);
  // The port follows the last ":" unless that is inside an IP literal ("[::1]").
  const colon = hostPort.lastIndexOf(':');
  const hasPort = colon !== -1 && colon > hostPort.lastIndexOf(']');
  const rawHost = hasPort ? hostPort.slice(0, colon) : hostPort;
  let port = hasPort ? hostPort.slice(colon + 1) : '';
  if (port !== '') {
    if (!/^[0-9]+$/.test(port) || Number(port) > 65535) return err('the uri has a port that is not a number from 0 to 65535');
    port = String(Number(port));
    if (HIERARCHICAL_DEFAULTS[scheme] === port) port = '';
  }
  let host = normalizeEncoding(rawHost, '').toLowerCase().replace(/%[0-9a-f]{2}/g, (t) => t.toUpperCase());
  if (scheme in HIERARCHICAL_DEFAULTS || scheme === 'file') {
    // For these schemes WHATWG parses the host itself: IPv4 in any notation
    // (`http://2130706433/` is 127.0.0.1), percent-decoding, IDNA. An upstream that parses
    // URIs so would read a numeric spelling as the listed host, so policy must as well; the
    // platform's own host parser is exactly that reading.
    if (host !== '') {
      let parsed: string;
      try {
        parsed = new URL(`http://${host}/`).hostname;
      } catch {
        return err('the uri has a host that is not a valid host name or address');
      }
      host = parsed;
    }
  }
  if (scheme === 'file' && host === 'localhost') host = '';
  return ok(`${userinfo === undefined ? '' : `${userinfo}@`}${host}${port === '' ? '' : `:${port}`}`);
}

/** Percent-encodings in upper case, encoded unreserved characters decoded, characters a URI
 * may not hold raw (and those in `alsoEncode`) encoded as UTF-8. */
function normalizeEncoding(text: string, alsoEncode: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '%') {
      const hex = text.slice(i + 1, i + 3).toUpperCase();
      const decoded = String.fromCharCode(parseInt(hex, 16));
      out += UNRESERVED.test(decoded) ? decoded : `%${hex}`;
      i += 3;
      continue;
    }
    const code = text.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    out += ALLOWED.test(char) && !alsoEncode.includes(char) ? char : percentEncode(char);
    i += char.length;
  }
  return out;
}

function percentEncode(char: string): string {
  let out = '';
  for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** RFC 3986 §5.2.4, for a path that starts with "/". */
export function removeDotSegments(path: string): string {
  const segments = path.split('/');
  const out: string[] = [];
  // segments[0] is the empty text before the leading "/".
  for (let i = 1; i < segments.length; i++) {
    const s = segments[i]!;
    const last = i === segments.length - 1;
    if (s === '.' || s === '..') {
      if (s === '..' && out.length > 0) out.pop();
      // A final "." or ".." leaves the path ending in "/".
      if (last) out.push('');
      continue;
    }
    out.push(s);
  }
  return `/${out.join('/')}`;
}

// Value patterns for redaction: text that looks like a credential wherever it appears, under
// whatever key. Built-ins cover what turns up in tool arguments and results; operators add
// their own regexes (audit.redact.patterns). Each pattern is a global RegExp whose matches
// are replaced; `accept` lets a pattern veto a match (the Luhn check of card numbers).
//
// False positives cost a little readability, false negatives leak a secret, so the built-ins
// lean to redacting. They are linear-time shapes (no nested quantifiers over the same text).

export const BUILTIN_PATTERN_NAMES = ['bearer-token', 'jwt', 'aws-access-key-id', 'card-number', 'private-key'] as const;
export type BuiltinPatternName = (typeof BUILTIN_PATTERN_NAMES)[number];

export interface ValuePattern {
  readonly name: string;
  /** Global; every match is replaced unless `accept` says no. */
  readonly regex: RegExp;
  accept?(match: string): boolean;
  /** Numbers are checked too (a card number sent as a JSON number). */
  matchesNumber?(value: number): boolean;
}

const BUILTINS: Readonly<Record<BuiltinPatternName, ValuePattern>> = {
  // RFC 6750 section 2.1 b64token after "Bearer", and RFC 7617 "Basic" credentials: the
  // scheme word stays so a reader sees what kind of credential was there.
  'bearer-token': { name: 'bearer-token', regex: /(?<=\b(?:bearer|basic)\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi },
  // A JWS compact serialization (RFC 7515 section 7.1): base64url header starting `eyJ`
  // (`{"`), payload, and a signature that is empty for alg "none".
  jwt: { name: 'jwt', regex: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g },
  // AWS access key ids: long-term (AKIA), temporary (ASIA) and the other key-id prefixes.
  'aws-access-key-id': { name: 'aws-access-key-id', regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  // 13-19 digits, optionally grouped by single spaces or hyphens, not inside a longer digit
  // run; kept only when Luhn-valid and starting with a card network's major industry
  // identifier (2-6), so that millisecond timestamps (1...) and most ids are left alone.
  'card-number': {
    name: 'card-number',
    regex: /(?<!\d)[2-6](?:[ -]?\d){12,18}(?!\d)/g,
    accept: (match) => luhnValid(match.replace(/[ -]/g, '')),
    matchesNumber: (value) => Number.isSafeInteger(value) && value > 0 && /^[2-6]\d{12,18}$/.test(String(value)) && luhnValid(String(value)),
  },
  // PEM (RFC 7468) and OpenPGP armored private keys; an unterminated block is redacted to
  // the end of the string, since a cut-off key is still a key.
  'private-key': {
    name: 'private-key',
    regex: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
};

export function builtinPattern(name: BuiltinPatternName): ValuePattern {
  return BUILTINS[name];
}

/** A custom pattern; throws SyntaxError for an invalid regex (checked at boot). */
export function customPattern(name: string, source: string, flags: string): ValuePattern {
  return { name, regex: new RegExp(source, `g${flags.replace(/g/g, '')}`) };
}

/** The Luhn (ISO/IEC 7812-1 annex B) check digit test over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

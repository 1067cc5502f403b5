// Redaction of argument and result bodies for records in `redacted` mode: a copy of the
// value in which secrets are replaced by "[REDACTED]". Three rules, applied in one walk:
//   - keys: an object member whose key matches one of the regexes (case-insensitive,
//     unanchored: `token` also catches `accessToken` and `max_tokens`) loses its whole value;
//   - paths: a value at one of the JSON paths (json-path.ts) is replaced whole;
//   - patterns: inside every remaining string, matches of the value patterns are replaced
//     (redact-patterns.ts); numbers that look like card numbers are replaced whole.
// Pure: the input is never mutated, and compiling happens once at boot.
import type { JsonValue } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { compilePathSet, parseJsonPath, type PathSegment, type PathSet, type PathStates } from './json-path.ts';
import { builtinPattern, customPattern, type BuiltinPatternName, type ValuePattern } from './redact-patterns.ts';

export const REDACTED = '[REDACTED]';

export type PatternSpec =
  | { readonly kind: 'builtin'; readonly name: BuiltinPatternName }
  | { readonly kind: 'custom'; readonly name: string; readonly regex: string; readonly flags: string };

/** What `audit.redact` normalizes to: plain data, compiled by compileRedaction. */
export interface RedactionSpec {
  readonly keys: readonly string[];
  readonly paths: readonly string[];
  readonly patterns: readonly PatternSpec[];
}

export interface Redaction {
  readonly keys: readonly RegExp[];
  readonly paths: PathSet;
  readonly patterns: readonly ValuePattern[];
}

export interface RedactionIssue {
  /** JSON pointer relative to `redact`, e.g. `/keys/2`. */
  path: string;
  message: string;
}

export function compileRedaction(spec: RedactionSpec): Result<Redaction, RedactionIssue[]> {
  const issues: RedactionIssue[] = [];
  const keys: RegExp[] = [];
  spec.keys.forEach((source, i) => {
    try {
      // Not global: RegExp.test on a global regex moves lastIndex between calls.
      keys.push(new RegExp(source, 'i'));
    } catch (e) {
      issues.push({ path: `/keys/${i}`, message: `invalid regex: ${(e as Error).message}` });
    }
  });
  const paths: PathSegment[][] = [];
  spec.paths.forEach((text, i) => {
    const parsed = parseJsonPath(text);
    if (parsed.ok) paths.push(parsed.value);
    else issues.push({ path: `/paths/${i}`, message: `invalid path ${JSON.stringify(text)}: ${parsed.error}` });
  });
  const patterns: ValuePattern[] = [];
  spec.patterns.forEach((p, i) => {
    if (p.kind === 'builtin') return void patterns.push(builtinPattern(p.name));
    try {
      patterns.push(customPattern(p.name, p.regex, p.flags));
    } catch (e) {
      issues.push({ path: `/patterns/${i}/regex`, message: `invalid regex: ${(e as Error).message}` });
    }
  });
  if (issues.length > 0) return err(issues);
  return ok({ keys, paths: compilePathSet(paths), patterns });
}

/** A redacted copy of `value`. */
export function redact(value: JsonValue, redaction: Redaction): JsonValue {
  if (redaction.paths.matchesRoot) return REDACTED;
  return walk(value, redaction.paths.initial, redaction);
}

function walk(value: JsonValue, states: PathStates, r: Redaction): JsonValue {
  switch (typeof value) {
    case 'string':
      return redactString(value, r.patterns);
    case 'number':
      return r.patterns.some((p) => p.matchesNumber?.(value) === true) ? REDACTED : value;
    case 'boolean':
      return value;
  }
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((item, i) => child(item, i, states, r));
  // Object.fromEntries defines own properties, so a "__proto__" key stays a plain key.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, r.keys.some((k) => k.test(key)) ? REDACTED : child(item, key, states, r)]),
  );
}

function child(value: JsonValue, key: string | number, states: PathStates, r: Redaction): JsonValue {
  if (states.length === 0) return walk(value, states, r);
  const next = r.paths.step(states, key);
  return next.matched ? REDACTED : walk(value, next.states, r);
}

function redactString(text: string, patterns: readonly ValuePattern[]): string {
  let out = text;
  for (const p of patterns) {
    out = out.replace(p.regex, (match) => (p.accept === undefined || p.accept(match) ? REDACTED : match));
  }
  return out;
}

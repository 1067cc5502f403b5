// What counts as a usable secret read from a file (a header value, a client secret), shared
// by the boot-time config check and the runtime re-read on rotation so that both apply the
// same rule. Files written by `echo`, editors and secret stores end with a newline; that and
// any other surrounding whitespace is not part of the secret. Nothing here echoes the text.

import { err, ok, type Result } from '../protocol/result.ts';

const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory, not a file',
};

/** The secret in a file's text, or why there is none. */
export function secretFromText(text: string): Result<string, string> {
  const value = text.trim();
  if (value === '') return err('the file is empty');
  // RFC 9110 section 5.5: field values carry no CR, LF or NUL; a multi-line file is not one secret.
  if (/[\r\n\0]/.test(value)) return err('the file holds more than one line');
  return ok(value);
}

/** A failed read, in words, without the path (callers name the file themselves). */
export function describeReadError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return READ_FAILURES[code] ?? (e as Error).message;
}

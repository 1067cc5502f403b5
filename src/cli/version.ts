// The package's version, read from its package.json: two folders up from this module both in
// src/cli/ (a checkout) and in dist/cli/ (the installed package), so the two never disagree.
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

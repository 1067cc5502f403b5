// The two files the identity config may point to, read once at boot: a list of hashed API
// keys (YAML or JSON) and a JWKS of public keys. Each is checked as strictly as the config
// itself, and failures are messages, not throws, so the loader reports them with the rest.
// Nothing here echoes file content: a keys file might hold a key pasted in clear by mistake.

import { createPublicKey, type JsonWebKey } from 'node:crypto';
import type { JSONWebKeySet, JWK } from 'jose';
import { parse as parseYaml } from 'yaml';
import { createSchemaCheck } from '../config/schema-issues.ts';
import { API_KEY_LIST_SCHEMA, type RawApiKey } from './identity-config-schema.ts';
import { err, ok, type Result } from '../protocol/result.ts';

export type ReadFile = (file: string) => string;

const checkKeyListSchema = createSchemaCheck(API_KEY_LIST_SCHEMA);

const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory, not a file',
};

/** The API keys listed in `file` (a YAML or JSON list, the shape of `identity.apiKeys`). */
export function readKeyListFile(file: string, readFile: ReadFile): Result<RawApiKey[], string[]> {
  const text = readText(file, readFile);
  if (!text.ok) return err([text.error]);
  let data: unknown;
  try {
    // YAML 1.2 is a superset of JSON, so one parser reads both.
    // logLevel 'error': throw on errors, and never print warnings quoting the file.
    data = parseYaml(text.value, { prettyErrors: false, logLevel: 'error' });
  } catch {
    return err([`${file}: not valid YAML or JSON`]);
  }
  const issues = checkKeyListSchema(data ?? []);
  if (issues.length > 0) return err(issues.map((i) => `${file} ${i.path || '/'}: ${i.message}`));
  return ok((data ?? []) as RawApiKey[]);
}

/**
 * The JWKS in `file`. Refused: private key material (a JWKS published to a resource server
 * holds public keys only, RFC 7517 section 5), symmetric keys (HS* uses `jwt.secret`, never a
 * key set) and keys Node cannot import, so a bad key fails the boot, not a request.
 */
export function readJwksFile(file: string, readFile: ReadFile): Result<JSONWebKeySet, string[]> {
  const text = readText(file, readFile);
  if (!text.ok) return err([text.error]);
  let data: unknown;
  try {
    data = JSON.parse(text.value);
  } catch {
    return err([`${file}: not valid JSON`]);
  }
  const keys = (data as { keys?: unknown } | null)?.keys;
  if (data === null || typeof data !== 'object' || !Array.isArray(keys)) {
    return err([`${file}: expected a JWKS, {"keys": [...]}`]);
  }
  if (keys.length === 0) return err([`${file}: the JWKS holds no keys`]);
  const problems = keys.flatMap((key: unknown, i) => keyProblems(key).map((p) => `${file} /keys/${i}: ${p}`));
  return problems.length > 0 ? err(problems) : ok(data as JSONWebKeySet);
}

function keyProblems(key: unknown): string[] {
  if (key === null || typeof key !== 'object' || Array.isArray(key)) return ['expected a JWK object'];
  const jwk = key as JWK;
  if (jwk.kty === 'oct') return ['symmetric keys (kty "oct") are not read from a JWKS; set jwt.secret for HS*'];
  if ('d' in jwk) return ['holds private key material ("d"); publish only the public key'];
  try {
    createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    return [];
  } catch (e) {
    return [`not a usable public key (${(e as Error).message})`];
  }
}

function readText(file: string, readFile: ReadFile): Result<string, string> {
  try {
    return ok(readFile(file));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    return err(`${file}: cannot read: ${READ_FAILURES[code] ?? (e as Error).message}`);
  }
}

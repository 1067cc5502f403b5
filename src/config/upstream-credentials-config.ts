// An HTTP upstream's own credentials, from the schema-checked, interpolated `headers` and
// `auth` to the normalized HttpUpstreamConfig fields (docs/architecture.md house style 4), with the
// checks a schema cannot say. Files named here are read once at boot so that a missing or
// unreadable secret fails the boot, naming upstream, header and file; re-reading them on
// rotation is upstream/secret-file.ts's job. Messages never echo a secret or a file's text.

import path from 'node:path';
import { readFileSync } from 'node:fs';
import { isHttpUrl, isSecureOrLoopback } from '../identity/http-url.ts';
import { toPointer } from './config-error.ts';
import type { RawUpstream } from './config-schema.ts';
import { describeReadError, secretFromText } from './secret-text.ts';
import type { RawClientCredentialsAuth } from './upstream-auth-schema.ts';
import { normalizeTokenExchangeAuth, normalizeUserUpstreamAuth } from '../user-auth/user-auth-config.ts';
import type { ClientCredentialsConfig, HeaderFileConfig, HttpUpstreamConfig } from './types.ts';

export type ReadFile = (file: string) => string;

export interface CredentialIssue {
  /** Path segments below the upstream, e.g. ['headers', 'Authorization', 'file']. */
  at: (string | number)[];
  message: string;
  atKey?: true;
}

type Credentials = Pick<HttpUpstreamConfig, 'headers' | 'headerFiles' | 'auth' | 'userAuth' | 'tokenExchange'>;

const AUTHORIZATION = 'authorization';

export function normalizeUpstreamCredentials(
  u: RawUpstream,
  baseDir: string,
  issues: CredentialIssue[],
  readFile: ReadFile = (file) => readFileSync(file, 'utf8'),
): Credentials {
  const headers: Record<string, string> = {};
  const headerFiles: HeaderFileConfig[] = [];
  const readable = (file: string, what: string, at: (string | number)[]): void => {
    const problem = bootReadProblem(file, readFile);
    if (problem !== undefined) issues.push({ at, message: `upstream "${u.name}", ${what}: ${file}: ${problem}` });
  };
  for (const [header, value] of Object.entries(u.headers ?? {})) {
    if (typeof value === 'string') {
      headers[header] = value;
      continue;
    }
    const file = path.resolve(baseDir, value.file);
    readable(file, `header "${header}"`, ['headers', header, 'file']);
    headerFiles.push({ header, file, prefix: value.prefix ?? '' });
  }
  if (u.auth?.type === 'user' || u.auth?.type === 'token_exchange') {
    const userIssues: { path: string; message: string }[] = [];
    const resolve = (file: string): string => path.resolve(baseDir, file);
    const perUser = u.auth.type === 'user' ? { userAuth: normalizeUserUpstreamAuth(u.auth, '', userIssues, resolve) } : { tokenExchange: normalizeTokenExchangeAuth(u.auth, '', userIssues, resolve) };
    for (const i of userIssues) issues.push({ at: ['auth', ...i.path.split('/').filter(Boolean)], message: i.message });
    const secretFile = (perUser.userAuth?.client ?? perUser.tokenExchange?.client)?.secretFile;
    if (secretFile !== undefined) readable(secretFile, 'auth.clientSecretFile', ['auth', 'clientSecretFile']);
    return { headers, headerFiles, auth: undefined, ...perUser };
  }
  const auth = u.auth === undefined ? undefined : normalizeAuth(u.auth, baseDir);
  if (auth !== undefined && 'file' in auth.clientSecret) {
    readable(auth.clientSecret.file, 'auth.clientSecretFile', ['auth', 'clientSecretFile']);
  }
  return { headers, headerFiles, auth };
}

function normalizeAuth(a: RawClientCredentialsAuth, baseDir: string): ClientCredentialsConfig {
  const scope = Array.isArray(a.scope) ? a.scope.join(' ') : a.scope;
  return {
    type: a.type,
    tokenUrl: a.tokenUrl,
    clientId: a.clientId,
    // The schema guarantees exactly one of the two.
    clientSecret: a.clientSecretFile !== undefined ? { file: path.resolve(baseDir, a.clientSecretFile) } : { value: a.clientSecret ?? '' },
    clientAuth: a.clientAuth ?? 'client_secret_basic',
    scope: scope === '' ? undefined : scope,
    resource: a.resource === false ? { kind: 'none' } : a.resource === undefined ? { kind: 'upstream-url' } : { kind: 'uri', uri: a.resource },
    audience: a.audience,
  };
}

function bootReadProblem(file: string, readFile: ReadFile): string | undefined {
  let text: string;
  try {
    text = readFile(file);
  } catch (e) {
    return `cannot read: ${describeReadError(e)}`;
  }
  const secret = secretFromText(text);
  return secret.ok ? undefined : secret.error;
}

/** Checks on the normalized, interpolated values; `at` is relative to the upstream. */
export function checkUpstreamCredentials(u: HttpUpstreamConfig): CredentialIssue[] {
  const issues: CredentialIssue[] = [];
  const a = u.auth;
  if (a === undefined && u.userAuth === undefined && u.tokenExchange === undefined) return issues;
  // Two sources for one header would make the one sent depend on merge order.
  const names = [...Object.keys(u.headers), ...u.headerFiles.map((f) => f.header)];
  for (const name of names.filter((n) => n.toLowerCase() === AUTHORIZATION)) {
    issues.push({
      at: ['headers', name],
      atKey: true,
      message: `upstream "${u.name}" sets \`auth\`, which sends its own Authorization header; remove this one`,
    });
  }
  if (a === undefined) return issues;
  if (!isHttpUrl(a.tokenUrl)) {
    issues.push({ at: ['auth', 'tokenUrl'], message: 'expected an absolute http:// or https:// URL' });
  } else if (!isSecureOrLoopback(new URL(a.tokenUrl))) {
    // RFC 6749 section 3.2: the token endpoint MUST be reached over TLS; it receives the secret.
    issues.push({ at: ['auth', 'tokenUrl'], message: 'expected https (plain http only to a loopback host): the client secret would travel in clear' });
  }
  if ('value' in a.clientSecret && a.clientSecret.value === '') {
    issues.push({ at: ['auth', 'clientSecret'], message: 'expected a non-empty client secret (check the environment variable)' });
  }
  // RFC 8707 section 2: an absolute URI without a fragment.
  if (a.resource.kind === 'uri' && (!isHttpUrl(a.resource.uri) || new URL(a.resource.uri).hash !== '')) {
    issues.push({ at: ['auth', 'resource'], message: 'expected an absolute http(s) URL without a fragment (RFC 8707 section 2)' });
  }
  return issues;
}

/** `issue.at` under upstream `i`, as a JSON pointer into the file. */
export function credentialPointer(i: number, issue: CredentialIssue): string {
  return toPointer(['upstreams', i, ...issue.at]);
}

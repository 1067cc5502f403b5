// Real keys and tokens for the identity tests: RSA/EC key pairs from jose, tokens signed with
// SignJWT, and a real JWKS served over HTTP on 127.0.0.1 port 0 that counts its fetches.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { normalizeIdentityConfig, type IdentityConfig } from '../../src/identity/identity-config.ts';

export const NOW_S = 1_900_000_000;
export const NOW_MS = NOW_S * 1000;
export const ISSUER = 'https://auth.example.com';
export const RESOURCE = 'http://127.0.0.1:8080/mcp';
export const METADATA_URL = 'http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicJwk: JWK;
  publicPem: string;
}

export async function signingKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) };
}

/** A token valid at NOW for RESOURCE from ISSUER unless `claims` override; `null` removes a claim. */
export async function signToken(
  key: SigningKey,
  claims: Record<string, unknown> = {},
  header: { kid?: string | null; typ?: string } = {},
): Promise<string> {
  const base: Record<string, unknown> = { iss: ISSUER, aud: RESOURCE, sub: 'alice', iat: NOW_S, exp: NOW_S + 300 };
  const payload = Object.fromEntries(
    Object.entries({ ...base, ...claims }).filter(([, v]) => v !== null),
  ) as JWTPayload;
  const kid = header.kid === undefined ? key.kid : header.kid;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, ...(kid !== null ? { kid } : {}), ...(header.typ ? { typ: header.typ } : {}) })
    .sign(key.privateKey);
}

export function base64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

export interface JwksServer {
  url: string;
  fetches: () => number;
  setKeys(keys: JWK[]): void;
  /** Answer with this status instead of the key set. */
  failWith(status: number | undefined): void;
  close(): Promise<void>;
}

export async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  let current = keys;
  let count = 0;
  let failure: number | undefined;
  const server: Server = createServer((req, res) => {
    count++;
    if (req.url !== '/jwks.json') return void res.writeHead(404).end();
    if (failure !== undefined) return void res.writeHead(failure).end('no');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: current }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    fetches: () => count,
    setKeys: (next) => void (current = next),
    failWith: (status) => void (failure = status),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Normalizes `raw` (the `identity:` value) and fails the test on any issue. */
export function identityConfig(raw: unknown, baseDir = '/nonexistent', readFile?: (file: string) => string): IdentityConfig {
  const result = normalizeIdentityConfig(raw, baseDir, readFile);
  if (!result.ok) throw new Error(`unexpected config issues: ${JSON.stringify(result.error)}`);
  return result.value;
}

export function bearer(token: string): Headers {
  return new Headers({ authorization: `Bearer ${token}` });
}

// The bed of the suites that call with OAuth bearer JWTs: the modern fixture (named `up`) and a
// JWKS server publishing one RS256 signing key (`k1`), the gateway configured around both.
// The suite writes the identity section itself; it signs its tokens with the bed's key.
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { ISSUER, signingKey, startJwksServer, type JwksServer, type SigningKey } from '../identity/jwt-fixtures.ts';
import { startAll, useGatewayBed } from './gateway-bed.ts';
import type { TestGateway } from './gateway.ts';

export interface JwtUpstreams {
  upstream: ModernUpstream;
  jwks: JwksServer;
}

export interface JwtBed extends JwtUpstreams {
  key: SigningKey;
  gw: TestGateway;
}

export function useJwtBed(config: (up: JwtUpstreams) => string, ready: (bed: JwtBed) => void): void {
  let key: SigningKey;
  useGatewayBed({
    upstream: async () => {
      key = await signingKey('k1');
      return startAll({ upstream: startModernUpstream({ name: 'up' }), jwks: startJwksServer([key.publicJwk]) });
    },
    config,
    ready: ({ upstream, gw }) => ready({ ...upstream, key, gw }),
  });
}

/** The `identity:` section that trusts the bed's JWKS server for `resource` (RS256 only). */
export function jwtIdentityYaml(resource: string, up: JwtUpstreams): string {
  return `identity:
  resource: ${resource}
  jwt: { issuer: "${ISSUER}", jwksUrl: "${up.jwks.url}", algorithms: [RS256] }`;
}

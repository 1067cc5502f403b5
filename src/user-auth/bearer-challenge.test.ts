import { describe, expect, it } from 'vitest';
import { parseBearerChallenge } from './bearer-challenge.ts';

describe('parseBearerChallenge', () => {
  it('reads resource_metadata and scope from quoted params', () => {
    const c = parseBearerChallenge('Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="repo read:user"');
    expect(c).toEqual({ resourceMetadata: 'https://mcp.example/.well-known/oauth-protected-resource/mcp', scope: 'repo read:user', error: undefined });
  });

  it('reads token params, escapes, and a Bearer challenge after another scheme', () => {
    const c = parseBearerChallenge(['Basic realm="x"', 'Bearer error=invalid_token, scope="a \\"b\\""']);
    expect(c).toEqual({ resourceMetadata: undefined, scope: 'a "b"', error: 'invalid_token' });
  });

  it('is undefined without a Bearer challenge', () => {
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge(undefined)).toBeUndefined();
  });
});

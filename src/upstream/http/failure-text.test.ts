import { describe, expect, it } from 'vitest';
import { FailureText, loggableUrl, originOf, reasonOf } from './failure-text.ts';

const URL_WITH_SECRETS = 'https://gh:tok3n@tools.internal:8443/v1/mcp?api_key=s3cr3t#frag';

describe('failure text', () => {
  it('keeps only the origin for /readyz and origin and path for the log', () => {
    expect(originOf(URL_WITH_SECRETS)).toBe('https://tools.internal:8443');
    expect(loggableUrl(URL_WITH_SECRETS)).toBe('https://tools.internal:8443/v1/mcp');
  });

  it('tells the client a generic reason, and the system error only to /readyz and the log', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:8443'), { code: 'ECONNREFUSED' });
    const text = new FailureText(URL_WITH_SECRETS, 1000).unreachable({ kind: 'network_error', error: refused, responded: false });
    expect(text).toEqual({
      reason: 'connection failed',
      status: 'cannot reach https://tools.internal:8443: connect ECONNREFUSED 10.1.2.3:8443',
      log: 'cannot reach https://tools.internal:8443/v1/mcp: connect ECONNREFUSED 10.1.2.3:8443',
    });
    expect(reasonOf({ kind: 'network_error', error: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), responded: false })).toBe('connection lost');
    expect(reasonOf({ kind: 'timeout' })).toBe('timed out');
    expect(reasonOf({ kind: 'too_large', limit: 64 * 1024 * 1024 })).toBe('the answer exceeds the 67108864-byte limit (limits.maxUpstreamAnswerBytes)');
  });
});

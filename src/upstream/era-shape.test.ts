import { describe, expect, it } from 'vitest';
import { shapeParams } from './era-shape.ts';
import { GATEWAY_CLIENT_INFO } from '../protocol/implementation.ts';
import type { UpstreamRequest } from './upstream.ts';

function req(params: UpstreamRequest['params'], extra: Partial<UpstreamRequest> = {}): UpstreamRequest {
  return { method: 'tools/call', params, clientCapabilities: {}, ...extra };
}

describe('shapeParams for a legacy upstream', () => {
  it('sends params without _meta as they are', () => {
    const params = { name: 'echo', arguments: { message: 'hi' } };
    expect(shapeParams(req(params), 'legacy')).toBe(params);
  });
  it('keeps progressToken, trace and custom keys, and drops the reserved io.modelcontextprotocol/* keys', () => {
    const params = { name: 'echo', _meta: { progressToken: 3, traceparent: 't', 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'x.example/k': 1 } };
    expect(shapeParams(req(params), 'legacy')).toEqual({ name: 'echo', _meta: { progressToken: 3, traceparent: 't', 'x.example/k': 1 } });
    expect(params._meta).toHaveProperty('io.modelcontextprotocol/protocolVersion');
  });
  it('leaves _meta out when only reserved keys were in it', () => {
    expect(shapeParams(req({ name: 'echo', _meta: { 'io.modelcontextprotocol/clientInfo': {} } }), 'legacy')).toEqual({ name: 'echo' });
  });
});

describe('shapeParams for a modern upstream', () => {
  it('adds the per-request _meta keys, translating capabilities (no tasks, roots without listChanged)', () => {
    const shaped = shapeParams(req({ name: 'echo', _meta: { progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'info' } }, { clientCapabilities: { tasks: {}, roots: { listChanged: true }, sampling: {} } }), 'modern');
    expect(shaped).toEqual({
      name: 'echo',
      _meta: {
        progressToken: 'p',
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { roots: {}, sampling: {} },
        'io.modelcontextprotocol/clientInfo': GATEWAY_CLIENT_INFO,
        'io.modelcontextprotocol/logLevel': 'info',
      },
    });
  });
});

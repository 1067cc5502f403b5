import { describe, expect, it } from 'vitest';
import { buildRouteTable, hostOf } from './server-routes.ts';

describe('hostOf', () => {
  it('drops the port and lower-cases; keeps an IPv6 literal whole', () => {
    expect(hostOf('Team-A.Example.com:8443')).toBe('team-a.example.com');
    expect(hostOf('[::1]:8080')).toBe('[::1]');
    expect(hostOf(undefined)).toBe('');
  });
});

describe('the route table', () => {
  const lookup = buildRouteTable([
    { path: '/mcp', host: undefined, target: 'default' },
    { path: '/mcp', host: 'a.example', target: 'a' },
    { path: '/mcp/b', host: undefined, target: 'b' },
  ]);

  it('prefers the server of the request\'s host, then the host-less one of the path', () => {
    expect(lookup('/mcp', 'a.example:443')).toBe('a');
    expect(lookup('/mcp', 'other.example')).toBe('default');
    expect(lookup('/mcp/b', 'a.example')).toBe('b');
  });

  it('answers nothing for a path no endpoint has', () => {
    expect(lookup('/mcp/c', 'a.example')).toBeUndefined();
    expect(buildRouteTable([{ path: '/x', host: 'h', target: 1 }])('/x', 'g')).toBeUndefined();
  });
});

// DNS rebinding off /mcp: a page on attacker.example whose name now points at 127.0.0.1 is
// same-origin with the gateway, so its GETs of /readyz (config path, upstream states),
// /metrics and /approvals carry no Origin; only their Host gives them away. Those routes
// answer loopback names (and the gateway's own configured names, and allowedHosts) and
// refuse any other Host with 403, and a foreign Origin as /mcp does. /healthz and the RFC 9728
// metadata stay open. With `admin`, /metrics and /readyz are served only on that listener.
// A Host that is an IP address passes on /metrics and /readyz (a Prometheus scrape or a kubelet
// probe of a pod names its IP; a rebinding page always names its domain), never on /mcp.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, startTestGateway, type TestGateway } from '../harness/gateway.ts';

let upstream: ModernUpstream;
beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
});
afterAll(async () => {
  await upstream?.close();
});

/** A request with any Host header (fetch will not send one of our choosing). */
function send(base: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port: url.port, path: url.pathname, method: data === undefined ? 'GET' : 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

const EVIL = { host: 'attacker.example:8080' };
const OPERATOR_ROUTES = ['/readyz', '/metrics', '/approvals', '/approvals/api/pending'];

describe('a gateway on loopback, nothing configured', () => {
  let gw: TestGateway;
  let base: string;
  beforeAll(async () => {
    gw = await startTestGateway(`approvals:\n  keys: ["${'1'.repeat(64)}"]\n  console: { approvers: { groups: [ops] } }\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
    await gw.waitUp();
    base = new URL(gw.url).origin;
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('refuses a foreign Host on /readyz, /metrics and /approvals with 403, before anything is said', async () => {
    for (const path of OPERATOR_ROUTES) {
      const r = await send(base, path, EVIL);
      expect(r.status, path).toBe(403);
      expect(JSON.parse(r.text)).toEqual({ error: 'forbidden_host', message: 'Host not allowed: attacker.example:8080 (see allowedHosts)' });
      expect(r.text).not.toContain(gw.config.file);
    }
  });

  it('answers loopback names, with any port', async () => {
    for (const host of [`127.0.0.1:${gw.port}`, `localhost:${gw.port}`, 'localhost', `[::1]:${gw.port}`]) {
      const r = await send(base, '/readyz', { host });
      expect(r.status, host).toBe(200);
      expect(JSON.parse(r.text)).toMatchObject({ status: 'ready', config: gw.config.file });
    }
    expect((await send(base, '/metrics', { host: `127.0.0.1:${gw.port}` })).text).toContain('gatehouse_refusals_total{reason="forbidden_host",status="403"}');
  });

  it('refuses a foreign Origin on /readyz and /metrics as /mcp does', async () => {
    for (const path of ['/readyz', '/metrics']) {
      expect((await send(base, path, { host: `127.0.0.1:${gw.port}`, origin: 'http://attacker.example:8080' })).status).toBe(403);
      expect((await send(base, path, { host: `127.0.0.1:${gw.port}`, origin: `http://127.0.0.1:${gw.port}` })).status).toBe(200);
    }
  });

  it('leaves /healthz open, and /mcp as it was (Origin checked; Host only once allowedHosts is set)', async () => {
    expect((await send(base, '/healthz', EVIL)).status).toBe(200);
    const call = await send(base, '/mcp', { ...modernHeaders('tools/list'), ...EVIL }, modernBody(1, 'tools/list'));
    expect(call.status).toBe(200);
  });
});

describe('allowedHosts', () => {
  let gw: TestGateway;
  let base: string;
  beforeAll(async () => {
    gw = await startTestGateway(`allowedHosts: [Gatehouse.Example]\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
    await gw.waitUp();
    base = new URL(gw.url).origin;
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('adds names to every route, /mcp included, case-insensitively and with any port', async () => {
    expect((await send(base, '/readyz', { host: 'gatehouse.example:443' })).status).toBe(200);
    expect((await send(base, '/readyz', EVIL)).status).toBe(403);
    const ok = await send(base, '/mcp', { ...modernHeaders('tools/list'), host: 'GATEHOUSE.example' }, modernBody(1, 'tools/list'));
    expect(ok.status).toBe(200);
    const refused = await send(base, '/mcp', { ...modernHeaders('tools/list'), ...EVIL }, modernBody(2, 'tools/list'));
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).error).toMatchObject({ message: 'Host not allowed: attacker.example:8080 (see allowedHosts)' });
  });

  it('answers /metrics and /readyz by IP address (a scrape or probe of the pod), but not /mcp', async () => {
    for (const host of ['10.1.2.3:8080', '10.1.2.3', '[fd00::17]:8080']) {
      for (const path of ['/metrics', '/readyz']) expect((await send(base, path, { host })).status, `${path} ${host}`).toBe(200);
    }
    // A name is still refused there, and an address is still refused on /mcp (allowedHosts is its list).
    expect((await send(base, '/metrics', { host: '10.1.2.3.attacker.example' })).status).toBe(403);
    const byIp = await send(base, '/mcp', { ...modernHeaders('tools/list'), host: '10.1.2.3:8080' }, modernBody(3, 'tools/list'));
    expect(byIp.status).toBe(403);
  });
});

describe('an admin listener', () => {
  let gw: TestGateway;
  let base: string;
  beforeAll(async () => {
    gw = await startTestGateway(`admin: { host: 127.0.0.1, port: 0 }\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
    await gw.waitUp();
    base = new URL(gw.url).origin;
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('alone serves /metrics and /readyz; the MCP port answers 404 for them', async () => {
    expect(gw.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const admin = new URL(gw.adminUrl!);
    const local = { host: admin.host };
    expect((await send(gw.adminUrl!, '/readyz', local)).status).toBe(200);
    expect((await send(gw.adminUrl!, '/metrics', local)).text).toContain('gatehouse_requests_total');
    expect((await send(gw.adminUrl!, '/healthz', local)).status).toBe(200);
    expect((await send(gw.adminUrl!, '/mcp', local)).status).toBe(404);
    for (const path of ['/readyz', '/metrics']) expect((await send(base, path, { host: `127.0.0.1:${gw.port}` })).status, path).toBe(404);
    expect((await send(base, '/healthz', { host: `127.0.0.1:${gw.port}` })).status).toBe(200);
  });

  it('keeps the Host check on its own address, and answers a scrape by IP address', async () => {
    expect((await send(gw.adminUrl!, '/readyz', EVIL)).status).toBe(403);
    expect((await send(gw.adminUrl!, '/metrics', { host: '10.1.2.3:9090' })).status).toBe(200);
    expect((await send(gw.adminUrl!, '/readyz', { host: '[fd00::17]:9090' })).status).toBe(200);
  });
});

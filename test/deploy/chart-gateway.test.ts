// The gateway run as the chart deploys it: the rendered ConfigMap, Secret and Deployment laid
// out as a pod sees them (pod-files.ts), `gatehouse serve` started with the container's args
// and environment, the Deployment's probe paths answered, and a real SDK client served on the
// MCP path. The production profile runs as two replicas on one Redis and one audit claim: a
// session opened on one pod is continued on the other, rate-limit counters are in Redis, and
// each pod writes its own audit directory.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { connectLegacyClient, LegacyClient } from '../fixtures/clients.ts';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startRedis, type TestRedis } from '../harness/redis.ts';
import { GATEHOUSE_BIN, killAllGateways, startGatewayProcess, type GatewayProcess } from './gateway-process.ts';
import { CHART_DIR, expectRendered, findObject, helmRenderBinary, renderChart, type KubeObject } from './helm-render.ts';
import { layOutPod, mountOf, type PodFiles } from './pod-files.ts';

const work = mkdtempSync(join(tmpdir(), 'gatehouse-chart-run-'));
let upstream: ModernUpstream;
const ANONYMOUS = { resource: 'http://gh-gatehouse.mcp.svc:8080/mcp', anonymous: { enabled: true } };

interface HttpGet {
  path: string;
  httpHeaders?: { name: string; value: string }[];
}

function probes(objects: readonly KubeObject[]): HttpGet[] {
  const d = findObject(objects, 'Deployment') as unknown as { spec: { template: { spec: { containers: { livenessProbe: { httpGet: HttpGet }; readinessProbe: { httpGet: HttpGet } }[] } } } };
  const c = d.spec.template.spec.containers[0]!;
  return [c.livenessProbe.httpGet, c.readinessProbe.httpGet];
}

/** A probe as the kubelet sends it: Host is the pod's address (a documentation address
 * here, only ever a header) unless the probe's httpHeaders set one. */
function probe(origin: string, get: HttpGet): Promise<number> {
  const headers: Record<string, string> = { host: '192.0.2.10:8080' };
  for (const h of get.httpHeaders ?? []) headers[h.name.toLowerCase()] = h.value;
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${get.path}`, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}

function writableMounts(objects: readonly KubeObject[]): string[] {
  const d = findObject(objects, 'Deployment') as unknown as { spec: { template: { spec: { containers: { volumeMounts: { mountPath: string; readOnly?: boolean }[] }[] } } } };
  return d.spec.template.spec.containers[0]!.volumeMounts.filter((m) => !m.readOnly).map((m) => m.mountPath);
}

function mcpPath(configText: string): string {
  return (parse(configText) as { listen: { path?: string } }).listen.path ?? '/mcp';
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]?.text) ?? '';
}

beforeAll(async () => {
  helmRenderBinary();
  upstream = await startModernUpstream({ name: 'tools' });
}, 120_000);

afterAll(async () => {
  killAllGateways();
  await upstream?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('one replica, the chart making its own Secret', () => {
  it('passes `gatehouse config check`, starts with the rendered config, answers the probe paths, serves an SDK client on the MCP path, audits to its volume', async () => {
    const objects = expectRendered(renderChart([{ secrets: { sessionSecret: randomBytes(32).toString('hex') }, config: { identity: ANONYMOUS, upstreams: [{ name: 'tools', url: upstream.url }] } }]));
    const pod = layOutPod(objects, join(work, 'single'), 'gh-gatehouse-7d9f-abcde');
    expect(Object.keys(pod.env).sort()).toEqual(['GATEHOUSE_LOG_LEVEL', 'GATEHOUSE_SESSION_SECRET', 'POD_NAME']);

    const check = spawnSync(process.execPath, [GATEHOUSE_BIN, 'config', 'check', '--config', pod.configFile], { encoding: 'utf8', env: { PATH: process.env.PATH, ...pod.env } });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    const config = loadConfig(pod.configFile, pod.env);
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080, path: '/mcp' });
    // The pod-side audit directory is on a volume the container may write.
    expect(mountOf((parse(pod.configText) as { audit: { dir: string } }).audit.dir, writableMounts(objects))).toBe('/var/lib/gatehouse');
    expect(config.audit.dir).toBe(join(pod.mounts['/var/lib/gatehouse']!, 'audit'));

    const gw = await startGatewayProcess(pod.args, pod.env);
    // The kubelet repeats a readiness probe until it passes: /readyz is 503 until an upstream is up.
    for (const get of probes(objects)) await expect.poll(() => probe(gw.origin, get), { message: get.path, timeout: 20_000 }).toBe(200);
    expect(gw.url).toBe(`${gw.origin}${mcpPath(pod.configText)}`);
    const client = await connectLegacyClient(gw.url);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('tools__echo');
    expect(textOf(await client.callTool({ name: 'tools__echo', arguments: { message: 'from the pod' } }))).toBe('from the pod');
    await client.close();

    expect(await gw.stop('SIGTERM')).toBe(0);
    expect(readdirSync(config.audit.dir).some((f) => f.endsWith('.jsonl'))).toBe(true);
  });
});

describe('the production profile: two replicas, one Redis, one audit claim', () => {
  let redis: TestRedis;
  const apiKey = `ghk_${randomBytes(24).toString('hex')}`;
  const replicas: GatewayProcess[] = [];
  let objects: KubeObject[];
  const claim = join(work, 'audit-claim');

  beforeAll(async () => {
    redis = await startRedis();
    const cluster: KubeObject[] = [
      {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gatehouse-secrets' },
        stringData: {
          'session-secret': randomBytes(32).toString('hex'),
          'approval-key': randomBytes(32).toString('hex'),
          'api-keys.yaml': `- id: ci\n  sha256: ${createHash('sha256').update(apiKey).digest('hex')}\n  subject: ci-bot\n  groups: [automation]\n`,
        },
      },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gatehouse-redis' }, stringData: { url: redis.url } },
    ];
    const rendered = expectRendered(renderChart([join(CHART_DIR, 'ci/production-values.yaml'), { config: { upstreams: [{ name: 'tools', url: upstream.url }] } }]));
    objects = [...rendered, ...cluster];
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
    await redis?.stop();
  });

  it('passes `gatehouse config check` with the pod environment, then runs two replicas that are ready, probed as the kubelet probes', async () => {
    const pods: PodFiles[] = [];
    for (const name of ['gh-gatehouse-5c8d-aaaaa', 'gh-gatehouse-5c8d-bbbbb']) {
      const pod = layOutPod(objects, join(work, name), name, { 'gh-gatehouse-audit': claim });
      expect(pod.env.GATEHOUSE_REDIS_URL).toBe(redis.url);
      const config = loadConfig(pod.configFile, pod.env);
      expect(config.rateLimits).toMatchObject({ store: 'redis', redisUrl: redis.url });
      expect(config.approvals?.store).toMatchObject({ kind: 'redis' });
      expect(config.audit.dir).toBe(join(claim, 'audit', name));

      // config check covers the files the config names: the policy files and api-keys.yaml.
      const check = spawnSync(process.execPath, [GATEHOUSE_BIN, 'config', 'check', '--config', pod.configFile], { encoding: 'utf8', env: { PATH: process.env.PATH, ...pod.env } });
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
      expect(check.stdout).toContain('1 rule');
      pods.push(pod);
    }
    replicas.push(...(await Promise.all(pods.map((pod) => startGatewayProcess(pod.args, pod.env)))));
    for (const gw of replicas) {
      for (const get of probes(objects)) await expect.poll(() => probe(gw.origin, get), { message: get.path, timeout: 20_000 }).toBe(200);
    }
  });

  it('refuses a caller without an API key and serves one with it, by the rendered policy', async () => {
    const [a] = replicas;
    const refused = await fetch(a!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(refused.status).toBe(401);
    const client = await connectLegacyClient(a!.url, { headers: { authorization: `Bearer ${apiKey}` } });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['tools__echo']);
    await client.close();
  });

  it('continues a legacy session opened on one replica on the other, with rate limits counted in Redis', async () => {
    const [a, b] = replicas;
    const headers = { authorization: `Bearer ${apiKey}` };
    const onA = await connectLegacyClient(a!.url, { headers });
    expect(textOf(await onA.callTool({ name: 'tools__echo', arguments: { message: 'on a' } }))).toBe('on a');
    const sessionId = (onA.transport as StreamableHTTPClientTransport).sessionId;
    expect(sessionId).toBeTruthy();

    const transport = new StreamableHTTPClientTransport(new URL(b!.url), { sessionId, requestInit: { headers } });
    const onB = new LegacyClient({ name: 'same-session', version: '1.0.0' });
    await onB.connect(transport);
    transport.setProtocolVersion('2025-11-25');
    expect(textOf(await onB.callTool({ name: 'tools__echo', arguments: { message: 'on b' } }))).toBe('on b');
    await onA.close();

    const r = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await r.connect();
    expect((await r.keys('gatehouse:rl:*')).length).toBeGreaterThan(0);
    r.disconnect();
  });

  it('writes one audit directory per pod on the shared claim, and each replica exits 0 on SIGTERM', async () => {
    for (const gw of replicas.splice(0)) expect(await gw.stop('SIGTERM')).toBe(0);
    expect(readdirSync(join(claim, 'audit')).sort()).toEqual(['gh-gatehouse-5c8d-aaaaa', 'gh-gatehouse-5c8d-bbbbb']);
    for (const pod of readdirSync(join(claim, 'audit'))) expect(existsSync(join(claim, 'audit', pod, 'gatehouse-audit.jsonl'))).toBe(true);
  });
});

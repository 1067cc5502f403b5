// The container image, built from the Dockerfile with podman and run as the README says:
// read-only root, state on a volume, no capabilities. Checked: the image's metadata (user,
// stop signal, healthcheck, labels, init), what it holds (dist/ and production dependencies
// only), a real SDK client served through an HTTP and a stdio upstream, HEALTHCHECK passing,
// nothing written outside the volume, orphaned grandchildren reaped, and a clean exit on
// SIGTERM. Run by .ci/run as its own step (the first build takes minutes), not by `npm test`.
//
// The containers share the host's network namespace and the gateway binds 127.0.0.1: tests
// here never listen on other addresses, and the upstream they front runs on the host.
import { chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient } from '../../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../../fixtures/modern-upstream.ts';
import { freePort } from '../../harness/free-port.ts';
import { REPO_ROOT } from '../helm-render.ts';
import { buildImage, ensureBaseImage, podman, podmanAsync, podmanOk } from './podman.ts';

const IMAGE = 'localhost/gatehouse:image-test';
const NAME = `gatehouse-image-test-${process.pid}`;
const work = mkdtempSync(join(tmpdir(), 'gatehouse-image-'));
const UID = 10001;
// Leaves an orphan: the subshell exits at once, so `sleep` is re-parented to PID 1. When the
// test kills it, only a PID 1 that reaps children it did not start collects it.
const STDIO_WITH_ORPHAN = '(sleep 600 </dev/null >/dev/null 2>&1 &); exec node /opt/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio';
let upstream: ModernUpstream;

/** A config dir and a state dir (owned by the image's user) for one container. */
function prepare(name: string, port: number): { config: string; state: string } {
  const config = join(work, name, 'config');
  const state = join(work, name, 'state');
  mkdirSync(config, { recursive: true });
  mkdirSync(state, { recursive: true });
  chownSync(state, UID, UID);
  writeFileSync(join(config, 'gatehouse.yaml'), stringify({
    listen: { host: '127.0.0.1', port },
    audit: { dir: '/var/lib/gatehouse/audit' },
    upstreams: [
      { name: 'tools', url: upstream.url },
      { name: 'everything', command: 'sh', args: ['-c', STDIO_WITH_ORPHAN] },
    ],
  }));
  return { config, state };
}

function runArgs(name: string, dirs: { config: string; state: string }, port: number): string[] {
  return [
    'run', '-d', '--name', name, '--read-only', '--network', 'host', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
    '-v', `${dirs.config}:/etc/gatehouse:ro`, '-v', `${dirs.state}:/var/lib/gatehouse`,
    '-v', `${join(REPO_ROOT, 'node_modules')}:/opt/mcp/node_modules:ro`,
    '-e', `GATEHOUSE_HEALTHCHECK_URL=http://127.0.0.1:${port}/healthz`,
  ];
}

interface Proc {
  pid: string;
  state: string;
  ppid: string;
}

/** The processes named `comm` in the container, from /proc/<pid>/stat. */
function processes(name: string, comm: string): Proc[] {
  const out = podmanOk(['exec', name, 'sh', '-c', 'cat /proc/[0-9]*/stat 2>/dev/null; true']);
  return out.split('\n').flatMap((line) => {
    const m = /^(\d+) \((.*)\) (\S) (\d+)/.exec(line);
    return m && m[2] === comm ? [{ pid: m[1]!, state: m[3]!, ppid: m[4]! }] : [];
  });
}

/** Waits for the orphaned `sleep` under PID 1, kills it, and returns what is left of it. */
async function killOrphan(name: string): Promise<() => string[]> {
  await expect.poll(() => processes(name, 'sleep').map((p) => `${p.state} ppid ${p.ppid}`), { timeout: 20_000, interval: 200 }).toEqual(['S ppid 1']);
  podmanOk(['exec', name, 'sh', '-c', `kill ${processes(name, 'sleep')[0]!.pid}`]);
  return () => processes(name, 'sleep').map((p) => p.state);
}

async function ready(port: number): Promise<number> {
  return fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0);
}

beforeAll(async () => {
  let t = Date.now();
  const base = ensureBaseImage();
  process.stderr.write(`image test: base image ${base} ready in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  t = Date.now();
  buildImage(base, IMAGE);
  process.stderr.write(`image test: podman build in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  upstream = await startModernUpstream({ name: 'tools' });
}, 1_200_000);

afterAll(async () => {
  for (const n of [NAME, `${NAME}-no-init`]) podman(['rm', '-f', '-t', '0', n]);
  await upstream?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the image', () => {
  it('runs as a fixed non-root user under tini, stops on SIGTERM, checks health with node, and carries OCI labels', () => {
    const [image] = JSON.parse(podmanOk(['image', 'inspect', IMAGE])) as { Config: unknown; Healthcheck: { Test: string[] } }[];
    const c = image!.Config as { User: string; StopSignal: string; Entrypoint: string[]; Cmd: string[]; Labels: Record<string, string>; Volumes: Record<string, object> };
    expect(c.User).toBe('10001:10001');
    expect(c.StopSignal).toBe('SIGTERM');
    expect(c.Entrypoint).toEqual(['/usr/local/bin/tini', '--', 'node', '/app/bin/gatehouse.js']);
    expect(c.Cmd).toEqual(['serve', '--config', '/etc/gatehouse/gatehouse.yaml']);
    expect(image!.Healthcheck.Test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    expect(Object.keys(c.Volumes)).toEqual(['/var/lib/gatehouse']);
    expect(c.Labels).toMatchObject({ 'org.opencontainers.image.title': 'Gatehouse', 'org.opencontainers.image.licenses': 'Apache-2.0' });
    expect(c.Labels['org.opencontainers.image.revision']).toMatch(/^[0-9a-f]{40}$/);
  });

  it('holds the compiled gateway and production dependencies only: no sources, dev dependencies or curl', () => {
    const script = [
      'ls /app', 'test -f /app/dist/main.js', 'test ! -e /app/src', 'test ! -e /app/test',
      'for m in tsx typescript vitest @modelcontextprotocol/sdk; do test ! -e /app/node_modules/$m || echo "dev dependency $m"; done',
      'command -v curl wget || true',
    ].join(' && ');
    const r = podman(['run', '--rm', '--network', 'none', '--entrypoint', 'sh', IMAGE, '-c', script]);
    expect(r.stderr.split('\n').filter((l) => !/systemd/.test(l) && l.trim() !== '')).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(['LICENSE', 'bin', 'dist', 'node_modules', 'package.json', 'schema']);
  });
});

describe('a container with a read-only root and its state on a volume', () => {
  let port: number;
  let dirs: { config: string; state: string };

  beforeAll(async () => {
    port = await freePort();
    dirs = prepare('main', port);
    podmanOk([...runArgs(NAME, dirs, port), IMAGE]);
  }, 60_000);

  it('answers /healthz and /readyz, and its HEALTHCHECK passes', async () => {
    await expect.poll(() => ready(port), { timeout: 30_000, interval: 200 }).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const check = podman(['healthcheck', 'run', NAME]);
    expect(check.status, check.stderr).toBe(0);
  });

  it('serves an SDK client through an HTTP upstream and a stdio upstream started inside the container', async () => {
    const client = await connectLegacyClient(`http://127.0.0.1:${port}/mcp`);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('tools__echo');
    expect(names).toContain('everything__echo');
    const text = async (name: string) => ((await client.callTool({ name, arguments: { message: 'in a box' } })) as { content: { text: string }[] }).content[0]!.text;
    expect(await text('tools__echo')).toBe('in a box');
    expect(await text('everything__echo')).toContain('in a box');
    await client.close();
  });

  it('cannot write its root filesystem, and writes its audit trail to the volume as its own user', () => {
    const r = podman(['exec', NAME, 'sh', '-c', 'echo x > /app/written']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Read-only file system');
    const audit = join(dirs.state, 'audit');
    expect(readdirSync(audit)).toContain('gatehouse-audit.jsonl');
    expect(statSync(join(audit, 'gatehouse-audit.jsonl')).uid).toBe(UID);
  });

  it('reaps the orphaned grandchildren of a stdio upstream (tini is PID 1)', async () => {
    expect(podmanOk(['exec', NAME, 'cat', '/proc/1/comm'])).toBe('tini');
    const left = await killOrphan(NAME);
    await expect.poll(left, { timeout: 15_000, interval: 200 }).toEqual([]);
  });

  it('drains on its STOPSIGNAL (SIGTERM): a call in flight completes, then it exits 0 on its own', async () => {
    const client = await connectLegacyClient(`http://127.0.0.1:${port}/mcp`);
    const call = client.callTool({ name: 'tools__slow', arguments: { ms: 1500 } });
    await expect.poll(() => upstream.received.some((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call'), { timeout: 10_000, interval: 50 }).toBe(true);
    // podman stop sends the image's stop signal, and SIGKILL only after 30 s (exit code 137).
    const stopped = podmanAsync(['stop', '-t', '30', NAME]);
    expect(((await call) as { isError?: boolean }).isError).toBeFalsy();
    await client.close();
    expect((await stopped).status).toBe(0);
    expect(podmanOk(['inspect', '--format', '{{.State.ExitCode}}', NAME])).toBe('0');
    // The gateway logs to stderr, which `podman logs` replays on its own stderr.
    expect(podman(['logs', NAME]).stderr).toMatch(/"msg":"shutting down".*"signal":"SIGTERM"/);
  });
});

describe('the same container without an init (node as PID 1)', () => {
  it('leaves those grandchildren as zombies, which is why the image runs tini', async () => {
    const port = await freePort();
    const dirs = prepare('no-init', port);
    const name = `${NAME}-no-init`;
    podmanOk([...runArgs(name, dirs, port), '--entrypoint', 'node', IMAGE, '/app/bin/gatehouse.js', 'serve', '--config', '/etc/gatehouse/gatehouse.yaml']);
    await expect.poll(() => ready(port), { timeout: 30_000, interval: 200 }).toBe(200);
    expect(podmanOk(['exec', name, 'cat', '/proc/1/comm'])).toBe('node');
    const left = await killOrphan(name);
    await expect.poll(left, { timeout: 15_000, interval: 200 }).toEqual(['Z']);
  }, 60_000);
});

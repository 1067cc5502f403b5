// podman for the image tests, as Debian's podman runs on these machines: as root, with
// Debian's runc, cgroupfs and containers.conf beside this file. The base image comes from
// make-base-image.sh (registry images cannot be pulled here), reused while its inputs are
// unchanged; podman's layer cache makes a rebuild after a source change cheap.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helm-render.ts';

const HERE = join(REPO_ROOT, 'test/deploy/image');
const PODMAN_ENV = { ...process.env, CONTAINERS_CONF: join(HERE, 'containers.conf') };
const GLOBAL_FLAGS = ['--runtime', '/usr/sbin/runc', '--cgroup-manager=cgroupfs'];
const INSTALL_HINT = 'apt-get install -y podman runc debootstrap (.ci/run does this)';

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function podman(args: readonly string[], timeoutMs = 120_000): Ran {
  const r = spawnSync('podman', [...GLOBAL_FLAGS, ...args], { env: PODMAN_ENV, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`podman is not installed: ${INSTALL_HINT}`);
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** podman without blocking the event loop, for a test whose servers must answer meanwhile. */
export function podmanAsync(args: readonly string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', [...GLOBAL_FLAGS, ...args], { env: PODMAN_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** podman that must succeed; its stdout, trimmed. */
export function podmanOk(args: readonly string[], timeoutMs?: number): string {
  const r = podman(args, timeoutMs);
  if (r.status !== 0) throw new Error(`podman ${args.join(' ')} failed (${r.status}):\n${r.stderr.slice(-4000)}`);
  return r.stdout.trim();
}

/** The base image reference, made on first use (about 1.5 minutes), then reused. */
export function ensureBaseImage(): string {
  const r = spawnSync('bash', [join(HERE, 'make-base-image.sh')], { env: PODMAN_ENV, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`making the base image failed (${INSTALL_HINT}):\n${r.stderr.slice(-4000)}`);
  return r.stdout.trim().split('\n').pop()!;
}

/** `podman build` of the repository's Dockerfile on `base`, tagged `tag`. */
export function buildImage(base: string, tag: string): void {
  const revision = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.trim() || 'unknown';
  // docker format: the OCI image config has no HEALTHCHECK, so podman drops it there.
  // Host network: the build stage reaches the npm registry and Debian's mirror as this machine does.
  podmanOk(
    ['build', '--network', 'host', '--format', 'docker', '--build-arg', `BASE=${base}`, '--build-arg', `REVISION=${revision}`, '-t', tag, REPO_ROOT],
    900_000,
  );
}

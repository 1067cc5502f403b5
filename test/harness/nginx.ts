// Runs the real nginx binary for end-to-end tests. It fills the placeholders of a config
// template such as examples/nginx/nginx.conf.template, keeps every file nginx writes (pid,
// logs, temp files) in a fresh temp dir given as the prefix (`nginx -p`), listens on a free
// 127.0.0.1 port, and stops with SIGTERM. A missing nginx is an error, never a skip.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { vi } from 'vitest';
import { freePort } from './free-port.ts';

export interface RunningNginx {
  /** http://127.0.0.1:PORT/mcp */
  url: string;
  port: number;
  /** The prefix dir holding nginx.conf, nginx.pid, access.log, error.log and temp dirs. */
  dir: string;
  /** Lines of access.log so far. */
  accessLog(): string[];
  /** Stops nginx (SIGTERM, then SIGKILL) and removes `dir`. */
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'nginx is required by this end-to-end test and was not found. Install it (Debian/Ubuntu: ' +
  '`apt-get install -y nginx-light`, or `nginx`), or set NGINX_BIN to the binary. .ci/run installs it.';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** NGINX_BIN if set (and then only it), else `nginx` on PATH or in the usual sbin dirs. */
export function findNginx(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NGINX_BIN) {
    if (isExecutable(env.NGINX_BIN)) return env.NGINX_BIN;
    throw new Error(`NGINX_BIN=${env.NGINX_BIN} is not an executable file. ${INSTALL_HINT}`);
  }
  // Non-root users often lack /usr/sbin on PATH, where Debian puts nginx.
  const dirs = [...(env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/local/nginx/sbin'];
  for (const dir of dirs) {
    if (dir && isExecutable(join(dir, 'nginx'))) return join(dir, 'nginx');
  }
  throw new Error(INSTALL_HINT);
}

/**
 * Replaces each `${NAME}` of `vars` and fails on any placeholder left over. Temp-path
 * directives of modules this binary was built without are dropped (older "light" builds
 * lack uwsgi and scgi, and their directives would be unknown).
 */
export function renderConfig(template: string, vars: Record<string, string>, nginxVersionText = ''): string {
  let text = template;
  for (const [name, value] of Object.entries(vars)) text = text.split(`\${${name}}`).join(value);
  for (const mod of ['fastcgi', 'uwsgi', 'scgi']) {
    if (nginxVersionText.includes(`--without-http_${mod}_module`)) {
      text = text.replace(new RegExp(`^\\s*${mod}_temp_path .*$`, 'm'), '');
    }
  }
  const left = /\$\{[A-Z_][A-Z0-9_]*\}/.exec(text);
  if (left) throw new Error(`nginx template placeholder ${left[0]} was not filled in`);
  return text;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function startOnce(bin: string, dir: string, conf: string, port: number): Promise<{ child: ChildProcess } | { failed: string }> {
  const errorLog = join(dir, 'error.log');
  const child = spawn(bin, ['-p', `${dir}/`, '-c', conf, '-e', errorLog, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const outcome = await vi
    .waitUntil(async () => (exited() ? 'exited' : (await canConnect(port)) ? 'listening' : undefined), { timeout: 10_000, interval: 50 })
    .catch(() => 'silent' as const);
  if (outcome === 'listening') return { child };
  if (outcome === 'exited') {
    const log = existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '';
    return { failed: `${stderr}\n${log}`.trim() };
  }
  child.kill('SIGKILL');
  return { failed: `nginx did not accept connections on 127.0.0.1:${port} within 10 s\n${stderr}` };
}

/** Starts nginx from `template`; `vars` fill every placeholder except NGINX_LISTEN. */
export async function startNginx(bin: string, template: string, vars: Record<string, string>): Promise<RunningNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-nginx-'));
  // Run as root, nginx's workers drop to an unprivileged user; they must reach the temp
  // dirs nginx creates (and chowns) inside this prefix.
  chmodSync(dir, 0o755);
  const version = spawnSync(bin, ['-V'], { encoding: 'utf8' });
  const versionText = `${version.stdout ?? ''}${version.stderr ?? ''}`;
  const conf = join(dir, 'nginx.conf');
  let lastFailure = '';
  // The free port can be taken between probing and nginx's bind: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    writeFileSync(conf, renderConfig(template, { ...vars, NGINX_LISTEN: `127.0.0.1:${port}` }, versionText));
    const started = await startOnce(bin, dir, conf, port);
    if ('failed' in started) {
      lastFailure = started.failed;
      if (/Address already in use/.test(lastFailure)) continue;
      break;
    }
    const { child } = started;
    const killAtExit = (): void => {
      child.kill('SIGTERM');
    };
    process.once('exit', killAtExit);
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      port,
      dir,
      accessLog() {
        const file = join(dir, 'access.log');
        return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : [];
      },
      async stop() {
        process.removeListener('exit', killAtExit);
        // SIGTERM is nginx's fast shutdown: it does not wait for open SSE streams.
        child.kill('SIGTERM');
        if (!(await waitExit(child, 5_000))) {
          child.kill('SIGKILL');
          await waitExit(child, 2_000);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  throw new Error(`nginx failed to start (config ${conf}):\n${lastFailure}`);
}

// A real redis-server for tests: started on a free 127.0.0.1 port with persistence off,
// stopped in afterAll. CI installs the Debian package (.ci/run).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from './free-port.ts';

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const REDIS_BINARY = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));

export async function startRedis(): Promise<TestRedis> {
  if (!REDIS_BINARY) throw new Error('redis-server is not installed: apt-get install -y redis-server (.ci/run does this)');
  const port = await freePort();
  const child: ChildProcess = spawn(REDIS_BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

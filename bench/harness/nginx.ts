// nginx as a plain L7 HTTP pass-through in front of an upstream: the yardstick for what any
// reverse proxy costs; or, given several, the round-robin balancer in front of gateway
// replicas (scale-out scenario; a replica that refuses connections is skipped, nginx's default). One process (`master_process off`) so /proc/<pid>/stat holds all of
// its CPU time; keep-alive to the upstream and no buffering, as a streaming proxy needs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startHttpServer, stopProcess, type Pinning } from './child-processes.ts';

export interface NginxProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

export function findNginx(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

export function nginxConfig(dir: string, listenPort: number, upstreamPorts: readonly number[]): string {
  const temp = (name: string): string => join(dir, name);
  return `master_process off;
worker_processes 1;
error_log ${temp('error.log')} warn;
pid ${temp('nginx.pid')};
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp('client_body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  upstream mcp_upstream {
${upstreamPorts.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${listenPort};
    location / {
      proxy_pass http://mcp_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 300s;
    }
  }
}
`;
}

export async function startNginx(pinning: Pinning, nginx: string, tmpDir: string, upstreamUrls: string | readonly string[]): Promise<NginxProcess> {
  const urls = typeof upstreamUrls === 'string' ? [upstreamUrls] : upstreamUrls;
  const upstream = new URL(urls[0]!);
  const port = await freePort();
  const dir = join(tmpDir, `nginx-${port}`);
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(dir, port, urls.map((u) => Number(new URL(u).port))));
  const child = await startHttpServer(pinning, 'nginx', nginx, ['-p', dir, '-c', conf, '-g', 'daemon off;'], port);
  return { pid: child.pid!, url: `http://127.0.0.1:${port}${upstream.pathname}`, stop: () => stopProcess(child) };
}

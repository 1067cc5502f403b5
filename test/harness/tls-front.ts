// A real TLS-terminating front for tests that need the gateway on https (Gatehouse itself
// listens on plain HTTP and leaves TLS to the edge): nginx on 127.0.0.1 with a certificate made
// for the test by `openssl` (self-signed, for IP 127.0.0.1), proxying everything to a gateway
// port. Whoever must trust it gets the certificate as a CA (`ca`). A missing nginx or openssl
// is an error, never a skip.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNginx, startNginx, type RunningNginx } from './nginx.ts';

export interface TlsFront {
  /** https://127.0.0.1:PORT, without a trailing slash. */
  origin: string;
  /** The certificate in PEM: trust it as a CA to reach `origin`. */
  ca: string;
  nginx: RunningNginx;
  stop(): Promise<void>;
}

const TEMPLATE = `
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events { worker_connections 256; }
http {
  client_body_temp_path client_body_temp;
  proxy_temp_path proxy_temp;
  fastcgi_temp_path fastcgi_temp;
  uwsgi_temp_path uwsgi_temp;
  scgi_temp_path scgi_temp;
  access_log access.log;
  server {
    listen \${NGINX_LISTEN} ssl;
    ssl_certificate \${CERT};
    ssl_certificate_key \${KEY};
    location / {
      proxy_pass http://\${TARGET};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Proto https;
      proxy_buffering off;
    }
  }
}
`;

/** Starts the front for the gateway that will listen on 127.0.0.1:`targetPort`. */
export async function startTlsFront(targetPort: number): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-tls-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`openssl could not make the test certificate (apt-get install -y openssl): ${(e as Error).message}`);
  }
  const nginx = await startNginx(findNginx(), TEMPLATE, { CERT: cert, KEY: key, TARGET: `127.0.0.1:${targetPort}` });
  return {
    origin: `https://127.0.0.1:${nginx.port}`,
    ca: readFileSync(cert, 'utf8'),
    nginx,
    async stop() {
      await nginx.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

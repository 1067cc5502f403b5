// An HTTP server bound to its address: resolves once it listens, rejects when the address
// cannot be had (in use, not local), so a boot fails with the reason instead of serving nothing.
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';

export function listen(at: { host: string; port: number }, options: ServerOptions, listener: RequestListener): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = createServer(options, listener);
    s.once('error', reject);
    s.listen(at.port, at.host, () => resolve(s));
  });
}

/** The admin listener, bound; rejects when the address cannot be had. */
export async function listenAdmin(admin: { host: string; port: number }, listener: RequestListener): Promise<{ server: Server; url: string }> {
  const server = await listen(admin, {}, listener);
  const host = admin.host.includes(':') ? `[${admin.host}]` : admin.host;
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}

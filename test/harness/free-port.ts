// A port on 127.0.0.1 that nothing listens on just now, for what must name its own port before
// it starts (a gateway whose publicUrl carries it, redis-server, nginx, a CLI child).
import { createServer, type AddressInfo } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

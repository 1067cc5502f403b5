// A port on 127.0.0.1 that nothing listens on just now, for what must name its own port before
// it starts (a gateway whose publicUrl carries it, redis-server, nginx, a CLI child).
//
// Chosen below the kernel's ephemeral range: a port the kernel hands out for `listen(0)` or an
// outgoing connection could be taken by any other server or client of a parallel test between
// this check and the caller's own listen (EADDRINUSE, seen in CI); ports below the range are only
// ever taken by name. Random within the band, checked free, a bounded number of tries.
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

const LOWEST = 20_000;
const TRIES = 50;

function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > LOWEST + 1_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

const BAND_END = ephemeralStart();

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' || e.code === 'EACCES' ? resolve(undefined) : reject(e)));
    s.listen(port, '127.0.0.1', () => {
      const { port: bound } = s.address() as AddressInfo;
      s.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  for (let i = 0; i < TRIES; i++) {
    const port = await tryListen(LOWEST + Math.floor(Math.random() * (BAND_END - LOWEST)));
    if (port !== undefined) return port;
  }
  // A crowded band: any port the kernel offers.
  return (await tryListen(0))!;
}

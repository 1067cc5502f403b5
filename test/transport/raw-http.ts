// Raw HTTP/1.1 on 127.0.0.1 for the ingress tests: requests written as bytes, so that several
// can go back to back on one connection (pipelining) and a client can vanish at any moment.
import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 POST /mcp as raw bytes, for writing several back to back on one connection. */
export function rawPost(body: unknown, headers: Record<string, string>): string {
  const text = JSON.stringify(body);
  const lines = Object.entries({ host: '127.0.0.1', ...headers, 'content-length': String(Buffer.byteLength(text)) }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `POST /mcp HTTP/1.1\r\n${lines.join('')}\r\n${text}`;
}

/** A connected client socket whose errors (a reset after destroy) are expected. */
export async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  return socket;
}

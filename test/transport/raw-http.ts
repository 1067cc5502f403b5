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

export interface RawResponse {
  status: number;
  /** Header names lower-cased; repeated ones joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` (raw bytes, which may repeat headers or trickle) on a fresh connection
 * and reads the response up to the connection's end (send `connection: close`). */
export async function rawExchange(port: number, request: string): Promise<RawResponse> {
  const socket = await openSocket(port);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((r) => socket.once('close', () => r()));
  socket.write(request);
  await ended;
  return parseResponse(Buffer.concat(chunks).toString('utf8'));
}

export function parseResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) };
}

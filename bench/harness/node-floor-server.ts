// The least a Node.js MCP proxy can do for a legacy tools/call, as a yardstick next to nginx:
// node:http in, JSON.parse, the id swapped for one of its own, one upstream session over an
// undici Pool, the upstream's SSE reply parsed and its id swapped back. No identity, no
// checks, no policy, no audit, no streaming of notifications: what is left of a gateway's
// cost when everything a gateway is for is taken out. Not part of Gatehouse.
// argv: <port> <upstream URL> <upstream session id>
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [port, upstreamUrl, sessionId] = process.argv.slice(2) as [string, string, string];
const upstream = new URL(upstreamUrl);
const pool = new Pool(upstream.origin, { connections: 64, pipelining: 1 });
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-session-id': sessionId,
  'mcp-protocol-version': '2025-11-25',
};
let nextId = 1;

/** The JSON of the last `data:` line that holds an object (server-everything sends a priming event first). */
function lastMessage(text: string): string | undefined {
  const at = text.lastIndexOf('data: {');
  if (at === -1) return text.startsWith('{') ? text : undefined;
  const end = text.indexOf('\n', at);
  return text.slice(at + 6, end === -1 ? undefined : end);
}

async function forward(body: string): Promise<{ status: number; text: string }> {
  const msg = JSON.parse(body) as { id?: unknown };
  const clientId = msg.id;
  msg.id = nextId++;
  const res = await pool.request({ path: upstream.pathname, method: 'POST', headers, body: JSON.stringify(msg) });
  const json = lastMessage(await res.body.text());
  if (json === undefined) return { status: 502, text: '{"error":"no message from upstream"}' };
  const reply = JSON.parse(json) as { id?: unknown };
  reply.id = clientId;
  return { status: res.statusCode, text: JSON.stringify(reply) };
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.method !== 'POST') {
      res.end('node floor');
      return;
    }
    forward(Buffer.concat(chunks).toString('utf8')).then(
      ({ status, text }) => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      },
      (e: unknown) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: (e as Error).message }));
      },
    );
  });
}).listen(Number(port), '127.0.0.1');

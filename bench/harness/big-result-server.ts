// Child-process entry: a raw modern-era (2026-07-28) MCP server on 127.0.0.1 whose tools answer
// with big results, built once at start so that the upstream spends next to nothing per call
// (the id is spliced into text serialized in advance): what is measured is the proxy. Prints
// `{"url": ...}` when ready; serves until SIGTERM. Not part of Gatehouse.
//
// Tools (BIG_TOOLS): text and base64 image results of 1 MB and 20 MB (the JSON-RPC body's
// size), and `progress`, whose reply is an SSE stream of PROGRESS_EVENTS progress
// notifications (to the request's progressToken) and then its result.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const MB = 1_000_000;
export const PROGRESS_EVENTS = 1000;

export interface BigTool {
  name: string;
  kind: 'text' | 'image';
  /** Length of the text or of the base64 data, in characters (ASCII: bytes). */
  chars: number;
}

export const BIG_TOOLS: readonly BigTool[] = [
  { name: 'text_1mb', kind: 'text', chars: MB },
  { name: 'image_1mb', kind: 'image', chars: MB },
  { name: 'text_20mb', kind: 'text', chars: 20 * MB },
  { name: 'image_20mb', kind: 'image', chars: 20 * MB },
];

/** Deterministic content: printable lines for text, base64 of a byte pattern for an image. */
export function bigContent(tool: BigTool): Record<string, unknown> {
  if (tool.kind === 'text') {
    const line = 'the quick brown fox jumps over the lazy dog 0123456789 ';
    return { type: 'text', text: line.repeat(Math.ceil(tool.chars / line.length)).slice(0, tool.chars) };
  }
  const raw = Buffer.alloc(Math.floor((tool.chars * 3) / 4));
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 31 + 7) & 0xff;
  return { type: 'image', mimeType: 'image/png', data: raw.toString('base64').slice(0, tool.chars) };
}

const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'bench-big-results', version: '1.0.0' } };

function complete(result: Record<string, unknown>): string {
  return JSON.stringify({ resultType: 'complete', ...result, _meta: SERVER_META });
}

async function main(): Promise<void> {
  const results = new Map(BIG_TOOLS.map((t) => [t.name, Buffer.from(complete({ content: [bigContent(t)] }))]));
  const tools = [...BIG_TOOLS.map((t) => t.name), 'progress'].map((name) => ({ name, description: `bench: ${name}`, inputSchema: { type: 'object' } }));
  const answers: Record<string, string> = {
    'server/discover': complete({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'public' }),
    'tools/list': complete({ tools, ttlMs: 60_000, cacheScope: 'public' }),
  };
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method?: string; params?: { name?: string; _meta?: { progressToken?: unknown } } };
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const head = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":`;
      const name = msg.params?.name;
      const big = msg.method === 'tools/call' && name !== undefined ? results.get(name) : undefined;
      if (big) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(head) + big.length + 1 });
        res.write(head);
        res.write(big);
        res.end('}');
        return;
      }
      if (msg.method === 'tools/call' && name === 'progress') {
        const token = JSON.stringify(msg.params?._meta?.progressToken ?? 'none');
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        let events = '';
        for (let i = 1; i <= PROGRESS_EVENTS; i++) {
          events += `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${token},"progress":${i},"total":${PROGRESS_EVENTS}}}\n\n`;
          if (i % 100 === 0) {
            res.write(events);
            events = '';
          }
        }
        res.end(`event: message\ndata: ${head}${complete({ content: [{ type: 'text', text: `${PROGRESS_EVENTS} steps` }] })}}\n\n`);
        return;
      }
      const answer = msg.method !== undefined ? answers[msg.method] : undefined;
      const body = answer === undefined ? JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${String(msg.method)}` } }) : `${head}${answer}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` })}\n`);
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

// Imported by the scenario for its constants; serves only when run as the child.
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

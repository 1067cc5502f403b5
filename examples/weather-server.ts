// A small modern-era (2026-07-28) MCP server for the demo, built with the official
// `@modelcontextprotocol/server` 2.x SDK and served over Streamable HTTP on 127.0.0.1.
// Its `forecast` tool marks `region` with x-mcp-header, so calls through Gatehouse carry
// `Mcp-Param-Region` (see the README's header-routing section).
//   PORT=9001 node --import tsx examples/weather-server.ts
import { createServer } from 'node:http';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

const PORT = Number(process.env.PORT ?? 9001);

const FORECAST_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'Region code, e.g. eu-west', 'x-mcp-header': 'Region' },
    days: { type: 'integer', minimum: 1, maximum: 7, description: 'How many days ahead' },
  },
  required: ['region'],
} as const;

const SKIES = ['sunny', 'cloudy', 'rain', 'windy', 'fog', 'snow', 'clear'];

function buildServer(): McpServer {
  const server = new McpServer({ name: 'weather-example', version: '1.0.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  server.registerTool(
    'forecast',
    { description: 'A made-up forecast for a region', inputSchema: fromJsonSchema<{ region: string; days?: number }>(FORECAST_SCHEMA) },
    ({ region, days }) => {
      const n = days ?? 1;
      const lines = Array.from({ length: n }, (_, i) => `day ${i + 1}: ${SKIES[(region.length + i) % SKIES.length]}`);
      return { content: [{ type: 'text', text: `${region}\n${lines.join('\n')}` }] };
    },
  );
  server.registerResource('stations', 'weather://stations', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'eu-west: Dublin\nus-east: Ashburn' }],
  }));
  server.registerPrompt('packing-list', { description: 'What to pack for the weather' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'Check the forecast, then suggest what to pack.' } }],
  }));
  return server;
}

const handler = createMcpHandler(buildServer, { legacy: 'reject' });

const http = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const request = new Request(`http://127.0.0.1:${PORT}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: abort.signal,
    ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
  });
  const response = await handler.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
});

http.listen(PORT, '127.0.0.1', () => process.stderr.write(`weather example listening on http://127.0.0.1:${PORT}/mcp\n`));

// The conformance suite's server fixtures built with @modelcontextprotocol/sdk 1.x: a
// 2025-11-25 server with stateful sessions (one low-level Server per session), resumable
// SSE streams (an in-memory event store, so a client can come back with Last-Event-ID after
// test_reconnection closes its stream), server-to-client sampling and elicitation on the
// call's stream, and the loopback-only Host/Origin rule the DNS rebinding scenario checks.
// Listens on 127.0.0.1, port 0, path /mcp.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import * as content from './fixture-content.ts';
import { callModernDiagnostic, MODERN_DIAGNOSTIC_TOOLS } from './sdk1-modern-diagnostics.ts';
import { callInputRequiredLegacy, getInputRequiredPrompt, INPUT_REQUIRED_LEGACY_PROMPT, INPUT_REQUIRED_LEGACY_TOOLS } from './sdk1-input-required.ts';

export interface FixtureServer {
  url: string;
  close(): Promise<void>;
}

export interface Sdk1Server extends FixtureServer {
  /** Methods received, in order (for tests of what reached the upstream). */
  methods: string[];
  /** Sends notifications/resources/updated to every session subscribed to `uri`. */
  resourceUpdated(uri: string): Promise<void>;
  /** Sessions open now (initialized and not yet deleted). */
  sessionCount(): number;
  /** Standalone GET streams open now (their responses not yet closed). */
  getStreamCount(): number;
  /** The capabilities each open session's client declared at initialize. */
  clientCapabilities(): unknown[];
}

/** Every event of every stream, so a reconnecting client gets what it missed. Bounded by
 * the life of one conformance run. */
function memoryEventStore(): EventStore {
  const events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];
  return {
    async storeEvent(streamId, message) {
      const id = `${streamId}_${events.length}`;
      events.push({ id, streamId, message });
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return events.find((e) => e.id === eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const at = events.findIndex((e) => e.id === lastEventId);
      if (at < 0) return '';
      const streamId = events[at]!.streamId;
      for (const e of events.slice(at + 1)) if (e.streamId === streamId) await send(e.id, e.message);
      return streamId;
    },
  };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (value: string) => ({ type: 'text' as const, text: value });

function toolList(): unknown[] {
  const simple = Object.entries(content.TOOL_DESCRIPTIONS).map(([name, description]) => ({ name, description, inputSchema: content.NO_INPUT }));
  return [
    ...simple,
    { name: 'test_sampling', description: 'Asks the client to sample an LLM', inputSchema: content.SAMPLING_INPUT },
    { name: 'test_elicitation', description: 'Asks the user for input', inputSchema: content.ELICITATION_INPUT },
    { name: 'test_elicitation_sep1034_defaults', description: 'Elicitation with defaults', inputSchema: content.NO_INPUT },
    { name: 'test_elicitation_sep1330_enums', description: 'Elicitation with enum shapes', inputSchema: content.NO_INPUT },
    { name: content.JSON_SCHEMA_TOOL, description: 'A JSON Schema 2020-12 input schema', inputSchema: content.JSON_SCHEMA_2020_12 },
    ...MODERN_DIAGNOSTIC_TOOLS,
    ...INPUT_REQUIRED_LEGACY_TOOLS,
  ];
}

function buildServer(subscribed: Set<string>, subscribe = true): Server {
  const server = new Server(
    { name: 'conformance-sdk1', version: '1.0.0' },
    { capabilities: { tools: {}, prompts: {}, resources: subscribe ? { subscribe: true } : {}, logging: {}, completions: {} } },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList() as never }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    switch (req.params.name) {
      case 'test_simple_text':
        return { content: [text(content.SIMPLE_TEXT)] };
      case 'test_image_content':
        return { content: [{ type: 'image', data: content.PNG_BASE64, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: content.wavBase64(), mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return { content: [{ type: 'resource', resource: content.EMBEDDED_RESOURCE }] };
      case 'test_multiple_content_types':
        return { content: content.mixedContent() as never };
      case 'test_error_handling':
        return { isError: true, content: [text(content.ERROR_TEXT)] };
      case 'test_tool_with_logging':
        for (const [i, data] of content.LOG_STEPS.entries()) {
          if (i > 0) await delay(50);
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
        }
        return { content: [text('Logging tool completed')] };
      case 'test_tool_with_progress': {
        const token = extra._meta?.progressToken;
        for (const [i, progress] of [0, 50, 100].entries()) {
          if (i > 0) await delay(50);
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
        }
        return { content: [text('Progress tool completed')] };
      }
      case 'test_reconnection':
        // SEP-1699: end the POST stream before the answer; the answer waits in the event store.
        extra.closeSSEStream?.();
        await delay(100);
        return { content: [text('Reconnection test completed')] };
      case 'test_sampling': {
        const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: content.samplingRequest(String(args.prompt ?? '')) as never }, CreateMessageResultSchema);
        const said = answer.content.type === 'text' ? answer.content.text : JSON.stringify(answer.content);
        return { content: [text(`LLM response: ${said}`)] };
      }
      case 'test_elicitation': {
        const answer = await extra.sendRequest({ method: 'elicitation/create', params: content.elicitationRequest(String(args.message ?? '')) as never }, ElicitResultSchema);
        return { content: [text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
      }
      case 'test_elicitation_sep1034_defaults':
      case 'test_elicitation_sep1330_enums': {
        const params = req.params.name === 'test_elicitation_sep1034_defaults' ? content.DEFAULTS_ELICITATION : content.ENUMS_ELICITATION;
        const answer = await extra.sendRequest({ method: 'elicitation/create', params: params as never }, ElicitResultSchema);
        return { content: [text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
      }
      case content.JSON_SCHEMA_TOOL:
        return { content: [text(`received ${JSON.stringify(args)}`)] };
      default: {
        const diagnostic = (await callModernDiagnostic(req.params.name, args, extra as never, server)) ?? (await callInputRequiredLegacy(req.params.name, extra as never));
        if (diagnostic) return diagnostic;
        throw new McpError(-32602, `Unknown tool: ${req.params.name}`);
      }
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: Object.entries(content.PROMPT_DESCRIPTIONS).map(([name, description]) => ({
      name,
      description,
      ...(name === 'test_prompt_with_arguments'
        ? { arguments: [{ name: 'arg1', description: 'First argument', required: true }, { name: 'arg2', description: 'Second argument', required: true }] }
        : name === 'test_prompt_with_embedded_resource'
          ? { arguments: [{ name: 'resourceUri', description: 'URI to embed', required: true }] }
          : {}),
    })).concat([INPUT_REQUIRED_LEGACY_PROMPT]),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
    const args = req.params.arguments ?? {};
    switch (req.params.name) {
      case 'test_simple_prompt':
        return { messages: [{ role: 'user', content: text(content.SIMPLE_PROMPT_TEXT) }] };
      case 'test_prompt_with_arguments':
        return { messages: [{ role: 'user', content: text(content.argumentsPromptText(args.arg1 ?? '', args.arg2 ?? '')) }] };
      case 'test_prompt_with_embedded_resource':
        return { messages: content.embeddedResourcePrompt(args.resourceUri ?? 'test://example-resource') as never };
      case 'test_prompt_with_image':
        return { messages: content.imagePrompt() as never };
      case INPUT_REQUIRED_LEGACY_PROMPT.name:
        return getInputRequiredPrompt(extra as never);
      default:
        throw new McpError(-32602, `Unknown prompt: ${req.params.name}`);
    }
  });

  const direct = [content.STATIC_TEXT, content.STATIC_BINARY, content.WATCHED];
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: direct.map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [content.TEMPLATE] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri;
    const found = direct.find((r) => r.uri === uri);
    if (found) {
      const { name: _n, description: _d, ...body } = found;
      return { contents: [body] };
    }
    const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
    if (m) return { contents: [{ uri, mimeType: 'application/json', text: content.templateText(m[1]!) }] };
    throw new McpError(-32002, 'Resource not found', { uri });
  });
  server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    subscribed.add(req.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });
  server.setRequestHandler(CompleteRequestSchema, async (req) => {
    const values = req.params.ref.type === 'ref/prompt' && req.params.argument.name === 'arg1' ? content.completeArg1(req.params.argument.value) : [];
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  return raw ? JSON.parse(raw) : undefined;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

/** `subscribe: false`: no resources.subscribe (and no list_changed), so nothing makes a gateway open its GET stream. */
export async function startSdk1Server(opts: { subscribe?: boolean } = {}): Promise<Sdk1Server> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Map<Server, Set<string>>();
  const methods: string[] = [];
  const eventStore = memoryEventStore();
  let getStreams = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!content.isLoopbackHost(req.headers.host) || !content.isLoopbackOrigin(req.headers.origin)) return refuse(res, 403, 'Host or Origin not allowed');
    if (req.url?.split('?')[0] !== '/mcp') return void res.writeHead(404).end();
    const sid = req.headers['mcp-session-id'];
    const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (req.method === 'POST') {
      const body = await readJson(req);
      const method = (body as { method?: unknown } | undefined)?.method;
      if (typeof method === 'string') methods.push(method);
      if (known) return known.handleRequest(req, res, body);
      if (sid !== undefined) return refuse(res, 404, 'Session not found');
      const isInit = typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
      if (!isInit) return refuse(res, 400, 'Bad Request: no session; send initialize first');
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore,
        retryInterval: 500,
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      const subscribed = new Set<string>();
      const server = buildServer(subscribed, opts.subscribe ?? true);
      servers.set(server, subscribed);
      transport.onclose = () => void servers.delete(server);
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!known) return refuse(res, sid === undefined ? 400 : 404, 'Session not found');
      if (req.method === 'GET') {
        getStreams++;
        res.once('close', () => getStreams--);
      }
      return known.handleRequest(req, res);
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  };

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500, 'fixture failure');
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    sessionCount: () => sessions.size,
    getStreamCount: () => getStreams,
    clientCapabilities: () => [...servers.keys()].map((s) => s.getClientCapabilities()),
    async resourceUpdated(uri) {
      for (const [server, subscribed] of servers) if (subscribed.has(uri)) await server.sendResourceUpdated({ uri });
    },
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

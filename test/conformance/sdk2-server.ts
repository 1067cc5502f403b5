// The conformance suite's server fixtures built with @modelcontextprotocol/server 2.x: a
// 2026-07-28 server (createMcpHandler, a fresh McpServer per request) that also serves
// 2025-11-25 requests statelessly through the SDK's legacy path. Interactive tools use
// input_required (MRTR) with an HMAC-sealed requestState; the SDK's legacy shim turns them
// into server-to-client requests for 2025-11-25 clients. Host and Origin must be loopback
// (dns-rebinding-protection). Listens on 127.0.0.1, port 0, path /mcp.
import {
  completable,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  McpServer,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { serveWebHandler, type ReceivedRequest } from '../fixtures/http-edge.ts';
import * as content from './fixture-content.ts';
import type { FixtureServer } from './sdk1-server.ts';
import { registerInputRequiredTools } from './sdk2-input-required.ts';

const text = (value: string) => ({ type: 'text' as const, text: value });
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const noInput = () => fromJsonSchema<Record<string, never>>(content.NO_INPUT);

type State = { toolsChanged: () => void; promptsChanged: () => void; extraTool: boolean; extraPrompt: boolean };

function registerContentTools(server: McpServer, state: State): void {
  const simple: Record<string, () => { content: unknown[]; isError?: boolean }> = {
    test_simple_text: () => ({ content: [text(content.SIMPLE_TEXT)] }),
    test_image_content: () => ({ content: [{ type: 'image', data: content.PNG_BASE64, mimeType: 'image/png' }] }),
    test_audio_content: () => ({ content: [{ type: 'audio', data: content.wavBase64(), mimeType: 'audio/wav' }] }),
    test_embedded_resource: () => ({ content: [{ type: 'resource', resource: content.EMBEDDED_RESOURCE }] }),
    test_multiple_content_types: () => ({ content: content.mixedContent() }),
    test_error_handling: () => ({ isError: true, content: [text(content.ERROR_TEXT)] }),
  };
  for (const [name, result] of Object.entries(simple)) {
    server.registerTool(name, { description: content.TOOL_DESCRIPTIONS[name], inputSchema: noInput() }, () => result() as never);
  }
  server.registerTool('test_tool_with_logging', { description: content.TOOL_DESCRIPTIONS.test_tool_with_logging, inputSchema: noInput() }, async (_args, ctx) => {
    for (const [i, data] of content.LOG_STEPS.entries()) {
      if (i > 0) await delay(50);
      await ctx.mcpReq.log('info', data);
    }
    return { content: [text('Logging tool completed')] };
  });
  server.registerTool('test_logging_tool', { description: 'Logs at info level (no message without a logLevel)', inputSchema: noInput() }, async (_args, ctx) => {
    await ctx.mcpReq.log('info', 'a log message');
    return { content: [text('logged')] };
  });
  server.registerTool('test_tool_with_progress', { description: content.TOOL_DESCRIPTIONS.test_tool_with_progress, inputSchema: noInput() }, async (_args, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (const [i, progress] of [0, 50, 100].entries()) {
      if (i > 0) await delay(50);
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
    }
    return { content: [text('Progress tool completed')] };
  });
  server.registerTool(content.JSON_SCHEMA_TOOL, { description: 'A JSON Schema 2020-12 input schema', inputSchema: fromJsonSchema<Record<string, unknown>>(content.JSON_SCHEMA_2020_12) }, (args) => ({
    content: [text(`received ${JSON.stringify(args)}`)],
  }));
  // Asking for sampling input the client did not declare: the SDK answers -32021 with 400.
  server.registerTool('test_missing_capability', { description: 'Needs the client to declare sampling', inputSchema: noInput() }, (_args, ctx) => {
    if (ctx.mcpReq.inputResponses?.llm !== undefined) return { content: [text('sampling answered')] };
    return inputRequired({ inputRequests: { llm: inputRequired.createMessage(content.samplingRequest('Say hello') as never) } });
  });
  server.registerTool('test_streaming_elicitation', { description: 'Asks for input (input_required, never a request on the stream)', inputSchema: noInput() }, (_args, ctx) => {
    if (ctx.mcpReq.inputResponses?.user !== undefined) return { content: [text('thanks')] };
    return inputRequired({ inputRequests: { user: inputRequired.elicit(content.elicitationRequest('Who are you?') as never) } });
  });
  // http-custom-header-server-validation: a string parameter mirrored into Mcp-Param-Region.
  server.registerTool('test_region_query', {
    description: 'Runs a query in a region (x-mcp-header)',
    inputSchema: fromJsonSchema<{ region: string; query?: string }>({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } }, required: ['region'] } as never),
  }, (args) => ({ content: [text(`${args.region}: ${args.query ?? ''}`)] }));
  server.registerTool('test_trigger_tool_change', { description: 'Adds a tool and announces it', inputSchema: noInput() }, () => {
    state.extraTool = !state.extraTool;
    state.toolsChanged();
    return { content: [text('tools changed')] };
  });
  server.registerTool('test_trigger_prompt_change', { description: 'Adds a prompt and announces it', inputSchema: noInput() }, () => {
    state.extraPrompt = !state.extraPrompt;
    state.promptsChanged();
    return { content: [text('prompts changed')] };
  });
  if (state.extraTool) server.registerTool('test_added_tool', { description: 'Appears after test_trigger_tool_change', inputSchema: noInput() }, () => ({ content: [text('added')] }));
}

/** The 2025-11-25 interactive tools, as input_required rounds (the SDK asks a legacy client directly). */
function registerLegacyInteractiveTools(server: McpServer): void {
  server.registerTool('test_sampling', { description: 'Asks the client to sample an LLM', inputSchema: fromJsonSchema<{ prompt: string }>(content.SAMPLING_INPUT) }, (args, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.llm as { content?: { type?: string; text?: string } } | undefined;
    if (!answer) return inputRequired({ inputRequests: { llm: inputRequired.createMessage(content.samplingRequest(args.prompt) as never) } });
    return { content: [text(`LLM response: ${answer.content?.text ?? JSON.stringify(answer.content)}`)] };
  });
  const elicitTool = (name: string, input: object, params: (args: Record<string, unknown>) => object, prefix: string) =>
    server.registerTool(name, { description: `Elicitation (${name})`, inputSchema: fromJsonSchema<Record<string, unknown>>(input) }, (args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.user as { action?: string; content?: unknown } | undefined;
      if (!answer) return inputRequired({ inputRequests: { user: inputRequired.elicit(params(args) as never) } });
      return { content: [text(`${prefix}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
    });
  elicitTool('test_elicitation', content.ELICITATION_INPUT, (a) => content.elicitationRequest(String(a.message ?? '')), 'User response');
  elicitTool('test_elicitation_sep1034_defaults', content.NO_INPUT, () => content.DEFAULTS_ELICITATION, 'Elicitation completed');
  elicitTool('test_elicitation_sep1330_enums', content.NO_INPUT, () => content.ENUMS_ELICITATION, 'Elicitation completed');
}

function registerPromptsAndResources(server: McpServer, state: State): void {
  server.registerPrompt('test_simple_prompt', { description: content.PROMPT_DESCRIPTIONS.test_simple_prompt }, () => ({
    messages: [{ role: 'user', content: text(content.SIMPLE_PROMPT_TEXT) }],
  }));
  server.registerPrompt('test_prompt_with_arguments', {
    description: content.PROMPT_DESCRIPTIONS.test_prompt_with_arguments,
    argsSchema: z.object({ arg1: completable(z.string().describe('First argument'), (v) => content.completeArg1(v)), arg2: z.string().describe('Second argument') }),
  }, ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: text(content.argumentsPromptText(arg1, arg2)) }] }));
  server.registerPrompt('test_prompt_with_embedded_resource', {
    description: content.PROMPT_DESCRIPTIONS.test_prompt_with_embedded_resource,
    argsSchema: z.object({ resourceUri: z.string().describe('URI to embed') }),
  }, ({ resourceUri }) => ({ messages: content.embeddedResourcePrompt(resourceUri) as never }));
  server.registerPrompt('test_prompt_with_image', { description: content.PROMPT_DESCRIPTIONS.test_prompt_with_image }, () => ({ messages: content.imagePrompt() as never }));
  if (state.extraPrompt) server.registerPrompt('test_added_prompt', { description: 'Appears after test_trigger_prompt_change' }, () => ({ messages: [] }));

  for (const r of [content.STATIC_TEXT, content.STATIC_BINARY, content.WATCHED]) {
    const { name, description, ...body } = r;
    server.registerResource(name, r.uri, { description, mimeType: r.mimeType }, () => ({ contents: [body] }));
  }
  server.registerResource(content.TEMPLATE.name, new ResourceTemplate(content.TEMPLATE.uriTemplate, { list: undefined }), { description: content.TEMPLATE.description, mimeType: content.TEMPLATE.mimeType }, (uri, vars) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: content.templateText(String(vars.id)) }],
  }));
}

export async function startSdk2Server(): Promise<FixtureServer> {
  const codec = createRequestStateCodec<Record<string, unknown>>({ key: 'conformance-fixture-request-state-key-0123456789', ttlSeconds: 600 });
  const state: State = { toolsChanged: () => undefined, promptsChanged: () => undefined, extraTool: false, extraPrompt: false };
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: 'conformance-sdk2', version: '2.0.0' },
      {
        capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: {}, completions: {}, logging: {} },
        requestState: { verify: (s, ctx) => codec.verify(s, ctx) },
      },
    );
    registerContentTools(server, state);
    registerLegacyInteractiveTools(server);
    registerInputRequiredTools(server, codec);
    registerPromptsAndResources(server, state);
    return server;
  }, { legacy: 'stateless', keepAliveMs: 0 });
  state.toolsChanged = () => handler.notify.toolsChanged();
  state.promptsChanged = () => handler.notify.promptsChanged();

  const received: ReceivedRequest[] = [];
  return serveWebHandler(received, handler, (req, res, buffered) => {
    received.length = 0;
    if (!content.isLoopbackHost(req.headers.host) || !content.isLoopbackOrigin(req.headers.origin)) {
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Host or Origin not allowed"}}');
      return true;
    }
    if (buffered.received.path.split('?')[0] !== '/mcp') {
      res.writeHead(404).end();
      return true;
    }
    return false;
  });
}

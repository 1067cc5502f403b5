// The MCP pipeline: a method table of plain functions (design.md §4, MCP ring). The
// transport hands over a parsed, era-checked Call; this resolves the owner upstream,
// checks and rebuilds headers, forwards, and returns the upstream's result unshaped
// (era shaping is the transport's last step).
import type { Catalog } from './catalog/catalog.ts';
import type { ListKind } from './catalog/merge.ts';
import type { GatewayConfig } from './config/types.ts';
import { buildParamHeaders, checkParamHeaders } from './headers/param-headers.ts';
import type { Call } from './jsonrpc/call.ts';
import { HEADER_MISMATCH, INTERNAL_ERROR, type GatewayError } from './jsonrpc/errors.ts';
import type { JsonObject } from './jsonrpc/message.ts';
import { isJsonObject } from './jsonrpc/message.ts';
import { err, ok, type Result } from './jsonrpc/result.ts';
import type { Logger } from './logger.ts';
import type { Upstream } from './upstream/upstream.ts';
import { MODERN_VERSION, LEGACY_VERSION } from './upstream/upstream.ts';

export type Reply = Result<JsonObject, GatewayError>;
type Handler = (call: Call) => Promise<Reply>;

export const SUPPORTED_MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];
export const SUPPORTED_LEGACY_VERSIONS: readonly string[] = [LEGACY_VERSION, '2025-06-18', '2025-03-26'];
export const ALL_SUPPORTED_VERSIONS: readonly string[] = [...SUPPORTED_MODERN_VERSIONS, LEGACY_VERSION];

const LIST_KIND: Readonly<Record<string, { kind: ListKind; field: string }>> = {
  'tools/list': { kind: 'tools', field: 'tools' },
  'prompts/list': { kind: 'prompts', field: 'prompts' },
  'resources/list': { kind: 'resources', field: 'resources' },
  'resources/templates/list': { kind: 'resourceTemplates', field: 'resourceTemplates' },
};

export interface Gateway {
  handle(call: Call): Promise<Reply>;
  knows(method: string, era: 'modern' | 'legacy'): boolean;
  capabilities(): JsonObject;
  instructions(): string | undefined;
}

export function createGateway(deps: { config: GatewayConfig; catalog: Catalog; upstreams: readonly Upstream[]; logger: Logger }): Gateway {
  const { catalog, upstreams } = deps;

  const capabilities = (): JsonObject => {
    const caps: JsonObject = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } };
    if (upstreams.some((u) => isJsonObject(u.identity()?.capabilities.completions))) caps.completions = {};
    return caps;
  };

  const instructions = (): string | undefined => {
    const parts = upstreams.flatMap((u) => {
      const text = u.identity()?.instructions;
      return text ? [`[${u.name}] ${text}`] : [];
    });
    return parts.length ? parts.join('\n\n') : undefined;
  };

  const list: Handler = async (call) => {
    const { kind, field } = LIST_KIND[call.method]!;
    const page = await catalog.page(kind, call.authContext, call.params.cursor);
    if (!page.ok) return page;
    const { items, ...rest } = page.value;
    return ok({ [field]: items, ...rest });
  };

  const forward = async (call: Call, upstream: Upstream, params: JsonObject, paramHeaders?: Record<string, string>): Promise<Reply> =>
    upstream.request({
      method: call.method,
      params,
      clientCapabilities: call.clientCapabilities,
      ...(call.clientInfo ? { clientInfo: call.clientInfo } : {}),
      ...(paramHeaders ? { paramHeaders } : {}),
      signal: call.signal,
      onNotification: call.notify,
    });

  const callTool: Handler = async (call) => {
    const name = call.params.name;
    if (typeof name !== 'string') return err({ kind: 'invalid_params', message: 'tools/call needs a string "name"' });
    const target = await catalog.resolve('tools', name, call.authContext);
    if (!target) return err({ kind: 'invalid_params', message: `Unknown tool: ${name}` });
    const args = call.params.arguments;
    if (args !== undefined && !isJsonObject(args)) return err({ kind: 'invalid_params', message: 'tools/call "arguments" must be an object' });
    if (call.era === 'modern') {
      // We parse the body, so we are a server that MUST check Mcp-Param-* (digest c).
      const checked = checkParamHeaders(target.headerParams, args, call.headers);
      if (!checked.ok) return err({ kind: 'header_mismatch', message: checked.error });
      call.paramValues = checked.value;
    }
    const headers = buildParamHeaders(target.headerParams, args);
    if (!headers.ok) return err({ kind: 'invalid_params', message: headers.error });
    const reply = await forward(call, target.upstream, { ...call.params, name: target.name }, headers.value);
    if (reply.ok || reply.error.kind !== 'upstream_error' || reply.error.error.code !== HEADER_MISMATCH) return reply;
    // The upstream's schema changed under us: refresh its tools once and retry (digest c).
    deps.logger.info('upstream rejected Mcp-* headers; refreshing its tools and retrying once', { upstream: target.upstream.name, tool: target.name });
    catalog.invalidate(target.upstream.name, 'tools');
    const fresh = await catalog.resolve('tools', name, call.authContext);
    if (!fresh) return err({ kind: 'invalid_params', message: `Unknown tool: ${name}` });
    const again = buildParamHeaders(fresh.headerParams, args);
    if (!again.ok) return err({ kind: 'invalid_params', message: again.error });
    const second = await forward(call, fresh.upstream, { ...call.params, name: fresh.name }, again.value);
    if (second.ok || second.error.kind !== 'upstream_error' || second.error.error.code !== HEADER_MISMATCH) return second;
    // Not the client's fault: its headers were checked. Do not hand it a -32020 to chase.
    return err({ kind: 'upstream_error', upstream: fresh.upstream.name, error: { code: INTERNAL_ERROR, message: `Upstream "${fresh.upstream.name}" rejected the gateway's request headers: ${second.error.error.message}` } });
  };

  const getPrompt: Handler = async (call) => {
    const name = call.params.name;
    if (typeof name !== 'string') return err({ kind: 'invalid_params', message: 'prompts/get needs a string "name"' });
    const target = await catalog.resolve('prompts', name, call.authContext);
    if (!target) return err({ kind: 'invalid_params', message: `Unknown prompt: ${name}` });
    return forward(call, target.upstream, { ...call.params, name: target.name });
  };

  const readResource: Handler = async (call) => {
    const uri = call.params.uri;
    if (typeof uri !== 'string') return err({ kind: 'invalid_params', message: 'resources/read needs a string "uri"' });
    const route = await catalog.routeResource(uri, call.authContext);
    if (!route) return err({ kind: 'invalid_params', message: 'Resource not found', data: { uri } });
    const upstream = catalog.upstream(route.upstream)!;
    const reply = await forward(call, upstream, { ...call.params, uri: route.uri });
    if (!reply.ok || route.uri === uri || !Array.isArray(reply.value.contents)) return reply;
    // Contents name the upstream's URI; give the client back the one it asked for.
    const contents = reply.value.contents.map((c) => (isJsonObject(c) && c.uri === route.uri ? { ...c, uri } : c));
    return ok({ ...reply.value, contents });
  };

  const complete: Handler = async (call) => {
    const ref = call.params.ref;
    if (!isJsonObject(ref)) return err({ kind: 'invalid_params', message: 'completion/complete needs a "ref" object' });
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const target = await catalog.resolve('prompts', ref.name, call.authContext);
      if (!target) return err({ kind: 'invalid_params', message: `Unknown prompt: ${ref.name}` });
      return forward(call, target.upstream, { ...call.params, ref: { ...ref, name: target.name } });
    }
    if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      const route = await catalog.routeResource(ref.uri, call.authContext);
      if (!route) return err({ kind: 'invalid_params', message: 'Resource not found', data: { uri: ref.uri } });
      return forward(call, catalog.upstream(route.upstream)!, { ...call.params, ref: { ...ref, uri: route.uri } });
    }
    return err({ kind: 'invalid_params', message: 'completion/complete "ref" must be ref/prompt with a name or ref/resource with a uri' });
  };

  const discover: Handler = async () => {
    const text = instructions();
    return ok({
      supportedVersions: [...ALL_SUPPORTED_VERSIONS],
      capabilities: capabilities(),
      ...(text ? { instructions: text } : {}),
      ttlMs: 60_000,
      cacheScope: 'public',
    });
  };

  const common: Record<string, Handler> = {
    'tools/list': list,
    'prompts/list': list,
    'resources/list': list,
    'resources/templates/list': list,
    'tools/call': callTool,
    'prompts/get': getPrompt,
    'resources/read': readResource,
    'completion/complete': complete,
  };
  const modern: Record<string, Handler> = { ...common, 'server/discover': discover };
  const legacy: Record<string, Handler> = {
    ...common,
    ping: async () => ok({}),
    'logging/setLevel': async () => ok({}),
  };

  return {
    knows: (method, era) => method in (era === 'modern' ? modern : legacy),
    async handle(call) {
      const handler = (call.era === 'modern' ? modern : legacy)[call.method];
      if (!handler) return err({ kind: 'method_not_found', method: call.method });
      return handler(call);
    },
    capabilities,
    instructions,
  };
}

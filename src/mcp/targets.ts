// The four target methods as data for the one target sequence (target-sequence.ts): how each
// resolves the client's exposed name to an upstream, what it checks, what the upstream is
// sent and how the reply is rewritten. tools/call, prompts/get and resources/read are judged
// by policy; completion/complete runs nothing, so the caller need only see what it completes.
import type { Catalog } from '../catalog/catalog.ts';
import { invalidUriMessage } from '../catalog/resource-routing.ts';
import type { GatewayConfig } from '../config/types.ts';
import { checkParamHeaders, extractParamValues } from '../headers/param-headers.ts';
import type { Call, Handled, Reply } from '../protocol/call.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { unknownError, type CallTarget } from '../policy/enforcer.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { SchemaValidator } from '../validation/schema-validator.ts';
import { createTargetSequence, type Resolved, type SequenceDeps } from './target-sequence.ts';
import { createAuditBodies } from '../audit/audit-body.ts';
import { originOf, ToolResolution, type ToolCall, type ToolContext } from './tool-resolution.ts';
import { completionContext, filledArguments, refusedArgument, upstreamArguments } from '../overlays/overlay-arguments.ts';

export type Handler = (call: Call) => Promise<Handled>;
export type TargetMethod = 'tools/call' | 'prompts/get' | 'resources/read' | 'completion/complete';

export interface TargetDeps extends SequenceDeps {
  config: GatewayConfig;
  catalog: Catalog;
  validator: SchemaValidator;
  logger: Logger;
}

type Resolution = Result<Resolved, GatewayError>;

const invalid = (message: string): Resolution => err({ kind: 'invalid_params', message });

/** The target methods, and tools/call for a call the gateway makes on a client's behalf
 * (gatehouse__call_tool): the client never saw the tool's schema, so it sent no Mcp-Param-*
 * headers to check; the upstream's are computed from the arguments as always. */
export type TargetMethods = Record<TargetMethod, Handler> & { toolForGateway: Handler };

export function createTargetMethods(deps: TargetDeps): TargetMethods {
  const { catalog, validator, logger, config } = deps;
  // Which results the audit trail records (audit.record.results, audit.rules): those are read whole.
  const audited = config.audit.enabled ? createAuditBodies(config.audit) : undefined;
  const run = createTargetSequence(audited ? { ...deps, auditReadsResult: (name) => audited.modes(name).results !== 'none' } : deps);

  /** A schema the gateway cannot compile leaves its calls to the upstream to judge: said once per schema. */
  const uncheckedReported = new WeakSet<object>();
  const reportUnchecked = (schema: JsonObject, tool: string, upstream: string, reason: string): void => {
    if (uncheckedReported.has(schema)) return;
    uncheckedReported.add(schema);
    logger.warn('tool arguments not checked: its inputSchema cannot be used; the upstream judges them', { tool, upstream, reason });
  };

  const validateOutput = (tool: JsonObject, name: string, result: JsonObject): JsonObject => {
    if (config.validation.outputs === 'off' || !isJsonObject(tool.outputSchema) || !('structuredContent' in result) || result.isError === true) return result;
    const v = validator.validate(tool.outputSchema, result.structuredContent);
    if (v.kind !== 'invalid') return result;
    logger.warn('tool result does not match its outputSchema', { tool: name, problem: v.message, blocked: config.validation.outputs === 'block' });
    if (config.validation.outputs === 'warn') return result;
    return { content: [{ type: 'text', text: `The tool's result did not match its declared outputSchema (${v.message}); Gatehouse withheld it.` }], isError: true };
  };

  const tools: ToolContext = { config, catalog, validator, validateOutput, reportUnchecked };

  /** Behind identity or policy, what one caller may read is not for a shared cache (MCP
   * 2026-07-28, server/utilities/caching): an upstream's `cacheScope: "public"` knows nothing
   * of the gateway's access rules. */
  const guarded = config.identity !== undefined || config.policy !== undefined;

  // Synchronous when the catalog has the caller's tools at hand: no promise of its own.
  const resolveTool = (call: Call, clientHeaders = true): Resolution | Promise<Resolution> => {
    const name = call.params.name;
    if (typeof name !== 'string') return invalid('tools/call needs a string "name"');
    const args = call.params.arguments;
    if (args !== undefined && !isJsonObject(args)) return invalid('tools/call "arguments" must be an object');
    const found = catalog.resolve('tools', name, call.authContext);
    return found instanceof Promise ? found.then((f) => toolTarget(call, clientHeaders, name, args, f)) : toolTarget(call, clientHeaders, name, args, found);
  };

  const toolTarget = (call: Call, clientHeaders: boolean, name: string, args: JsonObject | undefined, found: Awaited<ReturnType<typeof catalog.resolve>>): Resolution => {
    if (!found) return err(unknownError({ kind: 'tool', name }));
    // An overlaid tool: the client sees (and mirrors headers for) the overlaid schema; policy,
    // the record and the upstream see the arguments as they will run (overlays/).
    const o = found.overlay;
    const sent = o ? upstreamArguments(o, args) : args;
    // We parse the body, so we are a server that MUST check Mcp-Param-* (MCP 2026-07-28,
    // custom headers from tool parameters); policy and the record read the decoded values.
    const checked = call.era === 'modern' && clientHeaders ? checkParamHeaders(found.headerParams, args, call.headers) : undefined;
    const values = checked?.ok && !o ? checked : extractParamValues(o ? o.upstreamHeaderParams : found.headerParams, sent);
    const target: CallTarget = { kind: 'tool', upstream: found.upstream.name, name: found.policyName ?? name, upstreamName: found.name, item: found.item };
    if (sent) target.arguments = sent;
    if (values.ok) target.params = values.value;
    const filled = o && filledArguments(o, args);
    const inputSchema = found.item.inputSchema;
    const checkArguments = (config.validation.arguments || o?.enforced === true) && isJsonObject(inputSchema);
    const resolved: { -readonly [K in keyof ToolCall]: ToolCall[K] } = { authContext: call.authContext, name, args, target, inputSchema: checkArguments ? inputSchema : undefined };
    if (values.ok) resolved.paramValues = values.value;
    if (filled) resolved.filled = filled;
    if (checked && !checked.ok) resolved.precheck = { kind: 'header_mismatch', message: checked.error };
    return ok(new ToolResolution(tools, resolved, found));
  };

  const resolvePrompt = async (call: Call): Promise<Resolution> => {
    const name = call.params.name;
    if (typeof name !== 'string') return invalid('prompts/get needs a string "name"');
    const found = await catalog.resolve('prompts', name, call.authContext);
    if (!found) return err(unknownError({ kind: 'prompt', name }));
    const clientArgs = isJsonObject(call.params.arguments) ? call.params.arguments : undefined;
    const o = found.overlay;
    const args = o ? upstreamArguments(o, clientArgs) : clientArgs;
    const kept = o && refusedArgument(o, clientArgs);
    const filled = o && filledArguments(o, clientArgs);
    const target: CallTarget = { kind: 'prompt', upstream: found.upstream.name, name: found.policyName ?? name, upstreamName: found.name, item: found.item, ...(args ? { arguments: args } : {}) };
    return ok({
      target,
      upstream: found.upstream,
      judge: 'call',
      unknown: unknownError({ kind: 'prompt', name }),
      ...(filled ? { filled } : {}),
      ...(kept ? { check: () => ({ kind: 'invalid_params', message: `Invalid arguments for prompt ${name}: argument "${kept}" is set by the gateway; leave it out` }) } : {}),
      upstreamParams: (p) => ({ ...p, name: found.name, ...(o ? { arguments: upstreamArguments(o, isJsonObject(p.arguments) ? p.arguments : undefined) ?? {} } : {}) }),
    });
  };

  const resolveResource = async (call: Call): Promise<Resolution> => {
    const uri = call.params.uri;
    if (typeof uri !== 'string') return invalid('resources/read needs a string "uri"');
    const routed = await catalog.routeResource(uri, call.authContext);
    if (!routed.ok) return invalid(invalidUriMessage(routed.error));
    const route = routed.value;
    const upstream = route && catalog.upstream(route.upstream);
    if (!route || !upstream) return err(unknownError({ kind: 'resource', name: uri }));
    // Policy, approval and rate limits judge the uri as listed (or its canonical form), not
    // the client's spelling of it: a respelling must not walk around a rule written for the
    // listed uri. A hidden resource answers exactly as a missing one, under the uri the client sent.
    return ok({
      target: { kind: 'resource', upstream: route.upstream, name: route.exposed, upstreamName: route.uri, ...(route.template === undefined ? {} : { template: route.template }) },
      upstream,
      judge: 'call',
      unknown: unknownError({ kind: 'resource', name: uri }),
      upstreamParams: (p) => ({ ...p, uri: route.uri }),
      rewrite: (reply: Reply) => {
        const shared: Reply = guarded && reply.ok && reply.value.cacheScope === 'public' ? ok({ ...reply.value, cacheScope: 'private' }) : reply;
        if (!shared.ok || route.uri === uri || !Array.isArray(shared.value.contents)) return shared;
        // Contents name the upstream's URI; give the client back the one it asked for.
        return ok({ ...shared.value, contents: shared.value.contents.map((c) => (isJsonObject(c) && c.uri === route.uri ? { ...c, uri } : c)) });
      },
    });
  };

  const resolveCompletion = async (call: Call): Promise<Resolution> => {
    const ref = call.params.ref;
    if (!isJsonObject(ref)) return invalid('completion/complete needs a "ref" object');
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const found = await catalog.resolve('prompts', ref.name, call.authContext);
      if (!found) return err(unknownError({ kind: 'prompt', name: ref.name }));
      // An argument the overlay keeps for the gateway has nothing for the client to complete.
      const arg = isJsonObject(call.params.argument) ? call.params.argument.name : undefined;
      const kept = found.overlay && typeof arg === 'string' && found.overlay.hidden.includes(arg) ? arg : undefined;
      return ok({
        ...(kept ? { check: () => ({ kind: 'invalid_params' as const, message: `Invalid arguments for prompt ${String(ref.name)}: argument "${kept}" is set by the gateway; leave it out` }) } : {}),
        target: { kind: 'prompt', upstream: found.upstream.name, name: found.policyName ?? ref.name, upstreamName: found.name, item: found.item },
        upstream: found.upstream,
        // A prompt the caller may not see cannot be completed either.
        judge: 'visibility',
        listed: { list: 'prompts', item: found.item, origin: originOf(found) },
        unknown: unknownError({ kind: 'prompt', name: ref.name }),
        upstreamParams: (p) => {
          const context = found.overlay && completionContext(found.overlay, isJsonObject(p.context) ? p.context : undefined);
          return { ...p, ref: { ...ref, name: found.name }, ...(context ? { context } : {}) };
        },
      });
    }
    if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      const clientUri = ref.uri;
      const routed = await catalog.routeResource(clientUri, call.authContext);
      if (!routed.ok) return invalid(invalidUriMessage(routed.error));
      const route = routed.value;
      const upstream = route && catalog.upstream(route.upstream);
      if (!route || !upstream) return err(unknownError({ kind: 'resource', name: clientUri }));
      const listed = (await catalog.item('resourceTemplates', route.exposed, call.authContext)) ?? (await catalog.item('resources', route.exposed, call.authContext));
      // A uri no list names (one a template matches, a gatehouse:// alias) is judged as a
      // resource under the uri policy sees, as resources/read judges it.
      const seen = listed ?? { item: { uri: route.exposed }, origin: { upstream: route.upstream, original: route.uri } };
      return ok({
        target: { kind: 'resource', upstream: route.upstream, name: route.exposed, upstreamName: route.uri },
        upstream,
        judge: 'visibility',
        listed: { list: seen.item.uriTemplate !== undefined ? 'resourceTemplates' : 'resources', item: seen.item, origin: seen.origin },
        unknown: unknownError({ kind: 'resource', name: clientUri }),
        upstreamParams: (p) => ({ ...p, ref: { ...ref, uri: route.uri } }),
      });
    }
    return invalid('completion/complete "ref" must be ref/prompt with a name or ref/resource with a uri');
  };

  return {
    'tools/call': (call) => run(call, resolveTool),
    toolForGateway: (call) => run(call, (c) => resolveTool(c, false)),
    'prompts/get': (call) => run(call, resolvePrompt),
    'resources/read': (call) => run(call, resolveResource),
    'completion/complete': (call) => run(call, resolveCompletion),
  };
}

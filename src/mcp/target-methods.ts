// The target methods of the MCP ring (docs/architecture.md §4): tools/call, prompts/get,
// resources/read and completion/complete. Each resolves the exposed name to its upstream,
// asks the enforcer (policy, pins, rate limits), validates what it can, rebuilds the
// Mcp-* headers from the upstream's own schema and forwards. Lists live in gateway.ts.
import type { Catalog } from '../catalog/catalog.ts';
import type { GatewayConfig } from '../config/types.ts';
import { buildParamHeaders, checkParamHeaders, extractParamValues } from '../headers/param-headers.ts';
import type { Call } from '../protocol/call.ts';
import { HEADER_MISMATCH, INTERNAL_ERROR, type GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import { unknownError, type CallTarget, type Enforcer } from '../policy/enforcer.ts';
import type { Upstream, UpstreamRequest } from '../upstream/upstream.ts';
import { runApproval, type ApprovalDeps, type FlowStep } from '../approvals/approval-flow.ts';
import { continuationState } from '../approvals/user-approval.ts';
import { answerForLegacy } from './legacy-mrtr-bridge.ts';
import { outcomeOf } from '../http/observer.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import type { SchemaValidator } from '../validation/schema-validator.ts';

export type Reply = Result<JsonObject, GatewayError>;
export type Handler = (call: Call) => Promise<Reply>;

export interface CallDeps {
  config: GatewayConfig;
  catalog: Catalog;
  enforcer: Enforcer;
  validator: SchemaValidator;
  logger: Logger;
  /** Unset: rules with effect approve get a clear "approval required" error. */
  approvals?: ApprovalDeps;
  metrics?: Metrics;
}

/** The trace fields that are set (traceparent always is when there is a trace). */
function definedFields(f: { traceparent?: string; tracestate?: string }): Record<string, string> {
  const out: Record<string, string> = {};
  if (f.traceparent !== undefined) out.traceparent = f.traceparent;
  if (f.tracestate !== undefined) out.tracestate = f.tracestate;
  return out;
}

export function createCallHandlers(deps: CallDeps): Record<'tools/call' | 'prompts/get' | 'resources/read' | 'completion/complete', Handler> {
  const { catalog, enforcer, validator, logger, config } = deps;

  /** Sends to the upstream inside a child span whose context travels in both the HTTP
   * headers and `_meta`, so one trace spans client -> gateway -> upstream (issue: telemetry). */
  const send = async (call: Call, upstream: Upstream, params: JsonObject, paramHeaders?: Record<string, string>): Promise<Reply> => {
    // No valid context on the request span (tracing off and no client trace): an upstream
    // span would neither record nor propagate anything, so none is made.
    const parent = call.span !== undefined && call.span.traceId !== undefined ? call.span : undefined;
    const span = parent?.startUpstreamSpan(
      call.method === 'resources/read'
        ? { upstream: upstream.name, method: call.method, resourceUri: params.uri as string }
        : { upstream: upstream.name, method: call.method, name: params.name as string },
    );
    // Nothing to propagate (no client trace, tracing off): the params go as they came.
    const carriers = span?.inject();
    const trace = carriers?.headers.traceparent !== undefined ? carriers : undefined;
    // Built field by field: no spreads on the per-request path.
    const req: UpstreamRequest = {
      method: call.method,
      params: trace ? { ...params, _meta: { ...(isJsonObject(params._meta) ? params._meta : {}), ...definedFields(trace.meta) } } : params,
      clientCapabilities: call.clientCapabilities,
      signal: call.signal,
      onNotification: call.notify,
    };
    if (call.clientInfo) req.clientInfo = call.clientInfo;
    if (paramHeaders) req.paramHeaders = paramHeaders;
    if (trace) req.traceHeaders = definedFields(trace.headers);
    const started = performance.now();
    const reply = await upstream.request(req);
    const ms = performance.now() - started;
    call.upstreamMs = (call.upstreamMs ?? 0) + ms;
    deps.metrics?.recordUpstreamCall({ upstream: upstream.name, method: call.method, durationMs: ms });
    // A span that does not record ignores what it is ended with: its outcome is not worked out.
    if (span?.recording) {
      const o = outcomeOf(reply);
      span.end({ outcome: o.outcome, ...(o.errorCode !== undefined ? { errorCode: o.errorCode } : {}), ...(o.errorMessage ? { errorMessage: o.errorMessage } : {}) });
    }
    return reply;
  };

  /** `send`, and for a legacy client whose upstream answers input_required: ask the client,
   * retry with its answers (a bounded number of rounds). */
  const forward = async (call: Call, upstream: Upstream, params: JsonObject, paramHeaders?: Record<string, string>): Promise<Reply> => {
    const reply = await send(call, upstream, params, paramHeaders);
    if (call.era !== 'legacy' || !reply.ok || reply.value.resultType !== 'input_required') return reply;
    return answerForLegacy(call, reply, (extra) => send(call, upstream, { ...params, ...extra }, paramHeaders));
  };

  /** Policy first (with the record of what was decided, for audit), then any approval the
   * decision asks for. `undefined` means go on with the call as it came. */
  const gate = async (call: Call, target: CallTarget, validate?: () => GatewayError | undefined): Promise<Result<FlowStep | undefined, GatewayError>> => {
    const g = await enforcer.gate(call.principal, target);
    if (!g.ok) {
      call.decision = g.error.kind === 'rate_limited' ? { effect: 'allow', ruleId: g.error.ruleId, reason: 'rate limited' } : { effect: 'deny', ruleId: 'error', reason: g.error.kind };
      return g;
    }
    call.decision = g.value;
    if (g.value.effect === 'deny') return err(unknownError(target));
    // Validation after the decision, so a hidden tool never answers "invalid arguments",
    // and before any approval, so nobody is asked to approve a call that cannot run.
    const invalid = validate?.();
    if (invalid) return err(invalid);
    if (g.value.effect !== 'approve') return ok(undefined);
    return runApproval(deps.approvals, call, g.value, {
      method: call.method,
      upstream: target.upstream,
      name: target.name,
      upstreamName: target.upstreamName,
      arguments: target.arguments ?? {},
      ruleId: g.value.ruleId,
    });
  };

  /** After an approved call, an upstream's own input_required keeps the approval for its
   * retries; our sealed state wraps the upstream's (README, Protocol eras: bridging: wrap, MAC, unwrap). */
  const keepApproval = (call: Call, step: FlowStep | undefined, reply: Reply, target: CallTarget): Reply => {
    if (!step || !deps.approvals || call.era !== 'modern' || !reply.ok || reply.value.resultType !== 'input_required') return reply;
    const a = deps.approvals;
    const t = { method: call.method, upstream: target.upstream, name: target.name, arguments: target.arguments ?? {}, ruleId: call.decision?.ruleId ?? '' };
    return ok({ ...reply.value, requestState: continuationState(a.sealer, t, call.authContext, a.now(), a.defaultTimeoutMs, reply.value.requestState) });
  };

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
    if (v.ok !== false) return result;
    logger.warn('tool result does not match its outputSchema', { tool: name, problem: v.message, blocked: config.validation.outputs === 'block' });
    if (config.validation.outputs === 'warn') return result;
    return { content: [{ type: 'text', text: `The tool's result did not match its declared outputSchema (${v.message}); Gatehouse withheld it.` }], isError: true };
  };

  const callTool: Handler = async (call) => {
    const name = call.params.name;
    if (typeof name !== 'string') return err({ kind: 'invalid_params', message: 'tools/call needs a string "name"' });
    const target = await catalog.resolve('tools', name, call.authContext);
    if (!target) return err(unknownError({ kind: 'tool', name }));
    call.target = { upstream: target.upstream.name, name, upstreamName: target.name };
    const args = call.params.arguments;
    if (args !== undefined && !isJsonObject(args)) return err({ kind: 'invalid_params', message: 'tools/call "arguments" must be an object' });
    if (call.era === 'modern') {
      // We parse the body, so we are a server that MUST check Mcp-Param-* (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters).
      const checked = checkParamHeaders(target.headerParams, args, call.headers);
      if (!checked.ok) {
        // Not to a caller who may not see the tool: its header parameters would give it away.
        if (!enforcer.visible(call.principal, 'tools', target.item, { upstream: target.upstream.name, original: target.name })) {
          call.decision = { effect: 'deny', ruleId: 'default', reason: 'not visible to the caller' };
          return err(unknownError({ kind: 'tool', name }));
        }
        return err({ kind: 'header_mismatch', message: checked.error });
      }
      call.paramValues = checked.value;
    } else {
      const values = extractParamValues(target.headerParams, args);
      if (values.ok) call.paramValues = values.value;
    }
    const toolTarget: CallTarget = { kind: 'tool', upstream: target.upstream.name, name, upstreamName: target.name, item: target.item };
    if (args) toolTarget.arguments = args;
    if (call.paramValues) toolTarget.params = call.paramValues;
    const inputSchema = target.item.inputSchema;
    const validate =
      config.validation.arguments && isJsonObject(inputSchema)
        ? (): GatewayError | undefined => {
            const v = validator.validate(inputSchema, args ?? {});
            if (v.ok === 'unchecked') reportUnchecked(inputSchema, name, target.upstream.name, v.reason);
            return v.ok === false ? { kind: 'invalid_params', message: `Invalid arguments for tool ${name}: ${v.message}` } : undefined;
          }
        : undefined;
    const gated = await gate(call, toolTarget, validate);
    if (!gated.ok) return gated;
    if (gated.value?.kind === 'reply') return ok(gated.value.result);
    const params = gated.value?.kind === 'forward' ? gated.value.params : call.params;
    const headers = buildParamHeaders(target.headerParams, args);
    if (!headers.ok) return err({ kind: 'invalid_params', message: headers.error });
    const reply = keepApproval(call, gated.value, await forward(call, target.upstream, { ...params, name: target.name }, headers.value), toolTarget);
    if (reply.ok) return ok(validateOutput(target.item, name, reply.value));
    if (reply.error.kind !== 'upstream_error' || reply.error.error.code !== HEADER_MISMATCH) return reply;
    // The upstream's schema changed under us: refresh its tools once and retry (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters).
    logger.info('upstream rejected Mcp-* headers; refreshing its tools and retrying once', { upstream: target.upstream.name, tool: target.name });
    catalog.invalidate(target.upstream.name, 'tools');
    const fresh = await catalog.resolve('tools', name, call.authContext);
    if (!fresh) return err(unknownError({ kind: 'tool', name }));
    const again = buildParamHeaders(fresh.headerParams, args);
    if (!again.ok) return err({ kind: 'invalid_params', message: again.error });
    const second = keepApproval(call, gated.value, await forward(call, fresh.upstream, { ...params, name: fresh.name }, again.value), toolTarget);
    if (second.ok || second.error.kind !== 'upstream_error' || second.error.error.code !== HEADER_MISMATCH) return second;
    // Not the client's fault: its headers were checked. Do not hand it a -32020 to chase.
    return err({ kind: 'upstream_error', upstream: fresh.upstream.name, error: { code: INTERNAL_ERROR, message: `Upstream "${fresh.upstream.name}" rejected the gateway's request headers: ${second.error.error.message}` } });
  };

  const getPrompt: Handler = async (call) => {
    const name = call.params.name;
    if (typeof name !== 'string') return err({ kind: 'invalid_params', message: 'prompts/get needs a string "name"' });
    const target = await catalog.resolve('prompts', name, call.authContext);
    if (!target) return err(unknownError({ kind: 'prompt', name }));
    call.target = { upstream: target.upstream.name, name, upstreamName: target.name };
    const promptArgs = isJsonObject(call.params.arguments) ? call.params.arguments : undefined;
    const promptTarget: CallTarget = { kind: 'prompt', upstream: target.upstream.name, name, upstreamName: target.name, item: target.item, ...(promptArgs ? { arguments: promptArgs } : {}) };
    const gated = await gate(call, promptTarget);
    if (!gated.ok) return gated;
    if (gated.value?.kind === 'reply') return ok(gated.value.result);
    const params = gated.value?.kind === 'forward' ? gated.value.params : call.params;
    return keepApproval(call, gated.value, await forward(call, target.upstream, { ...params, name: target.name }), promptTarget);
  };

  const readResource: Handler = async (call) => {
    const uri = call.params.uri;
    if (typeof uri !== 'string') return err({ kind: 'invalid_params', message: 'resources/read needs a string "uri"' });
    const route = await catalog.routeResource(uri, call.authContext);
    if (!route) return err(unknownError({ kind: 'resource', name: uri }));
    // Policy, approval and rate limits judge the uri as listed, not the client's spelling of it:
    // a gatehouse:// alias must not walk around a rule written for the listed uri.
    call.target = { upstream: route.upstream, name: route.exposed, upstreamName: route.uri };
    const resourceTarget: CallTarget = { kind: 'resource', upstream: route.upstream, name: route.exposed, upstreamName: route.uri };
    const gated = await gate(call, resourceTarget);
    // A hidden resource answers exactly as a missing one, under the uri the client sent.
    if (!gated.ok) return gated.error.kind === 'invalid_params' && call.decision?.effect === 'deny' ? err(unknownError({ kind: 'resource', name: uri })) : gated;
    if (gated.value?.kind === 'reply') return ok(gated.value.result);
    const params = gated.value?.kind === 'forward' ? gated.value.params : call.params;
    const reply = privateWhenGuarded(keepApproval(call, gated.value, await forward(call, catalog.upstream(route.upstream)!, { ...params, uri: route.uri }), resourceTarget));
    if (!reply.ok || route.uri === uri || !Array.isArray(reply.value.contents)) return reply;
    // Contents name the upstream's URI; give the client back the one it asked for.
    const contents = reply.value.contents.map((c) => (isJsonObject(c) && c.uri === route.uri ? { ...c, uri } : c));
    return ok({ ...reply.value, contents });
  };

  /** Behind identity or policy, what one caller may read is not for a shared cache (digest
   * d.5): an upstream's `cacheScope: "public"` knows nothing of the gateway's access rules. */
  const guarded = config.identity !== undefined || config.policy !== undefined;
  const privateWhenGuarded = (reply: Reply): Reply =>
    guarded && reply.ok && reply.value.cacheScope === 'public' ? ok({ ...reply.value, cacheScope: 'private' }) : reply;

  const complete: Handler = async (call) => {
    const ref = call.params.ref;
    if (!isJsonObject(ref)) return err({ kind: 'invalid_params', message: 'completion/complete needs a "ref" object' });
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const target = await catalog.resolve('prompts', ref.name, call.authContext);
      // A prompt the caller may not see cannot be completed either.
      if (!target || !enforcer.visible(call.principal, 'prompts', target.item, { upstream: target.upstream.name, original: target.name })) {
        return err(unknownError({ kind: 'prompt', name: ref.name }));
      }
      return forward(call, target.upstream, { ...call.params, ref: { ...ref, name: target.name } });
    }
    if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      const route = await catalog.routeResource(ref.uri, call.authContext);
      if (!route) return err(unknownError({ kind: 'resource', name: ref.uri }));
      const listed = (await catalog.item('resourceTemplates', route.exposed, call.authContext)) ?? (await catalog.item('resources', route.exposed, call.authContext));
      // A uri no list names (one a template matches, a gatehouse:// alias) is judged as a
      // resource under the uri policy sees, as resources/read judges it.
      const seen = listed ?? { item: { uri: route.exposed }, origin: { upstream: route.upstream, original: route.uri } };
      if (!enforcer.visible(call.principal, seen.item.uriTemplate !== undefined ? 'resourceTemplates' : 'resources', seen.item, seen.origin)) {
        return err(unknownError({ kind: 'resource', name: ref.uri }));
      }
      return forward(call, catalog.upstream(route.upstream)!, { ...call.params, ref: { ...ref, uri: route.uri } });
    }
    return err({ kind: 'invalid_params', message: 'completion/complete "ref" must be ref/prompt with a name or ref/resource with a uri' });
  };

  return { 'tools/call': callTool, 'prompts/get': getPrompt, 'resources/read': readResource, 'completion/complete': complete };
}

// The MCP pipeline: a method table of plain functions (docs/architecture.md §4, MCP ring). The
// transport hands over a parsed, era-checked Call; this resolves the owner upstream,
// checks and rebuilds headers, forwards, and returns the upstream's result unshaped
// (era shaping is the transport's last step).
import type { Catalog, ListFilter } from '../catalog/catalog.ts';
import { LIST_METHOD_BY_NAME } from '../protocol/list-kinds.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';
import { createTargetMethods, type Handler } from './targets.ts';
import { GATEWAY_UPSTREAM, NO_RECORD, type Call, type Handled } from '../protocol/call.ts';
import type { ApprovalDeps } from '../approvals/approval-flow.ts';
import type { Enforcer } from '../policy/enforcer.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import type { ConcurrencyGate } from '../limits/concurrency-gate.ts';
import type { SuspendedCalls } from './suspended-calls.ts';
import type { SchemaValidator } from '../validation/schema-validator.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { ALL_SUPPORTED_VERSIONS } from '../protocol/versions.ts';
import type { ResourceSubscriptions } from './resource-subscriptions.ts';
import { createToolSearch, type ToolSearch } from '../tool-search/tool-search.ts';
import { createResultShaper, type ResultShaper } from '../result-shaping/result-shaper.ts';
import type { TaskRuntime } from '../tasks/task-runtime.ts';
import { createTaskMethods } from '../tasks/task-methods.ts';
import { clientDeclaresTasks, TASKS_EXTENSION } from '../tasks/task-shapes.ts';
import { taskListFilter, withoutExecution, withTasksThrough } from '../tasks/task-list-view.ts';
import { CALL_TOOL_NAME } from '../tool-search/catalog-summary.ts';

const EMPTY_RESULT: Handled = Object.freeze({ reply: ok({}), record: NO_RECORD });

export interface Gateway {
  handle(call: Call): Promise<Handled>;
  knows(method: string, era: 'modern' | 'legacy'): boolean;
  capabilities(): JsonObject;
  /** The capabilities a 2025-11-25 initialize answers with. */
  legacyCapabilities(): JsonObject;
  instructions(): string | undefined;
}

export interface GatewayDeps {
  config: GatewayConfig;
  catalog: Catalog;
  upstreams: readonly Upstream[];
  logger: Logger;
  enforcer: Enforcer;
  validator: SchemaValidator;
  metrics?: Metrics;
  approvals?: ApprovalDeps;
  /** resources/subscribe for 2025-11-25 sessions; unset: not served. */
  subscriptions?: ResourceSubscriptions;
  /** The clock of kept results' expiry; Date.now by default. */
  now?: () => number;
  /** Concurrency gate per upstream name (limits/concurrency-gate.ts). */
  gates?: ReadonlyMap<string, ConcurrencyGate>;
  /** A virtual server's own instructions; unset: those of `upstreams`, each under its name. */
  instructions?: string;
  /** Tool search and result shaping made before (a config reload keeps their indexes and kept
   * results when their settings did not change); made from the config when unset. */
  contextBudget?: ContextBudget;
  /** Upstream calls suspended for a 2026-07-28 client's input (suspended-calls.ts). */
  suspended?: SuspendedCalls;
  /** Told of every call first: token-exchange upstreams keep the caller's current subject token (user-auth/exchange-access.ts). */
  noteCaller?: (call: Call) => void;
  /** Tasks passed through within an era (README, Tasks); unset: tasks are not offered. */
  tasks?: TaskRuntime;
}

export interface ContextBudget {
  toolSearch?: ToolSearch;
  shaper?: ResultShaper;
}

/** The context-budget features the config turns on (README, Context budget). */
export function createContextBudget(deps: Omit<GatewayDeps, 'contextBudget'>): ContextBudget {
  const { config } = deps;
  return {
    ...(config.toolSearch.enabled ? { toolSearch: createToolSearch({ settings: config.toolSearch, catalog: deps.catalog, enforcer: deps.enforcer, logger: deps.logger }) } : {}),
    ...(config.resultShaping.enabled
      ? { shaper: createResultShaper({ config: config.resultShaping, redaction: config.audit.redact, validator: deps.validator, ...(deps.now ? { now: deps.now } : {}) }) }
      : {}),
  };
}

export function createGateway(deps: GatewayDeps): Gateway {
  const { catalog, upstreams, enforcer } = deps;
  const tasks = deps.tasks ? createTaskMethods(deps.tasks, catalog, upstreams) : undefined;

  const capabilities = (): JsonObject => {
    // resources.subscribe: a listen's resourceSubscriptions are honoured where an upstream subscribes.
    const caps: JsonObject = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: deps.subscriptions?.offered() ? { listChanged: true, subscribe: true } : { listChanged: true } };
    if (upstreams.some((u) => isJsonObject(u.identity()?.capabilities.completions))) caps.completions = {};
    return caps;
  };
  /** server/discover: the tasks extension where an upstream offers tasks (a 2025-11-25 one's are bridged). */
  const modernCapabilities = (): JsonObject => (tasks?.offered() ? { ...capabilities(), extensions: { [TASKS_EXTENSION]: {} } } : capabilities());

  /** What a 2025-11-25 session is offered: logging (logging/setLevel is served), resource
   * subscriptions where an upstream takes them, and tasks where an upstream of either era
   * offers them (a 2026-07-28 one's are bridged). */
  const legacyCapabilities = (): JsonObject => {
    const caps: JsonObject = { ...capabilities(), logging: {} };
    if (tasks?.offered()) caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    return caps;
  };

  const own = deps.instructions;
  const instructions = (): string | undefined => {
    if (own !== undefined) return own;
    const parts = upstreams.flatMap((u) => {
      const text = u.identity()?.instructions;
      return text ? [`[${u.name}] ${text}`] : [];
    });
    return parts.length ? parts.join('\n\n') : undefined;
  };

  const { toolSearch, shaper } = deps.contextBudget ?? createContextBudget(deps);

  const list: Handler = async (call) => {
    const { kind, field } = LIST_METHOD_BY_NAME.get(call.method)!;
    if (kind === 'tools' && toolSearch?.answersList(call)) {
      const listed = await toolSearch.list(call);
      const through = tasks !== undefined && clientDeclaresTasks(call.era, call.clientCapabilities) && upstreams.some((u) => tasks.reaches(call.era, u.name));
      return through ? { ...listed, reply: withTasksThrough(listed.reply, CALL_TOOL_NAME) } : listed;
    }
    const policyFilter = enforcer.listFilter(call.principal, kind);
    // Tools that run only as tasks, and `execution`, are for clients that declared tasks (tasks/task-list-view.ts).
    const withTasks = kind === 'tools' && tasks !== undefined && tasks.mayRun();
    const declared = withTasks && clientDeclaresTasks(call.era, call.clientCapabilities);
    const filter = withTasks ? taskListFilter(policyFilter, call.era, declared, tasks.reaches) : policyFilter;
    const page = await catalog.page(kind, call.authContext, call.params.cursor, filter);
    if (!page.ok) return { reply: page, record: NO_RECORD };
    const { items, ...rest } = page.value;
    return { reply: ok({ [field]: withTasks && !declared ? withoutExecution(items) : items, ...rest }), record: NO_RECORD };
  };

  const { toolForGateway, ...targets } = createTargetMethods({
    config: deps.config,
    catalog,
    enforcer,
    validator: deps.validator,
    logger: deps.logger,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.approvals ? { approvals: deps.approvals } : {}),
    ...(shaper ? { shaper } : {}),
    ...(deps.gates ? { gates: deps.gates } : {}),
    ...(deps.suspended ? { suspended: deps.suspended } : {}),
  });
  // The gateway's own tools (tool search) and results (kept by shaping) come before routing.
  const callTool = targets['tools/call'];
  const readResource = targets['resources/read'];
  const routedCall: Handler = tasks ? (call) => (tasks.mayRun() ? tasks.call(call, callTool) : callTool(call)) : callTool;
  // gatehouse__call_tool runs the named tool as a task too, as a direct call would.
  const runNamed: Handler = tasks ? (call) => (tasks.mayRun() ? tasks.call(call, toolForGateway) : toolForGateway(call)) : toolForGateway;
  // Searches and descriptions leave out what the caller's tools/list would (task-list-view.ts).
  const tasksView = (call: Call) => (base: ListFilter | undefined): ListFilter | undefined =>
    tasks?.mayRun() ? taskListFilter(base, call.era, clientDeclaresTasks(call.era, call.clientCapabilities), tasks.reaches) : base;
  targets['tools/call'] = toolSearch ? (call) => toolSearch.call(call, runNamed, tasksView(call)) ?? routedCall(call) : routedCall;
  if (shaper) {
    targets['resources/read'] = (call) => {
      const kept = typeof call.params.uri === 'string' ? shaper.read(call.params.uri, call.authContext) : undefined;
      if (!kept) return readResource(call);
      const uri = call.params.uri as string;
      return Promise.resolve({ reply: kept, record: { target: { upstream: GATEWAY_UPSTREAM, name: uri, upstreamName: uri } } });
    };
  }

  const discover: Handler = async () => {
    const text = instructions();
    return {
      reply: ok({
        supportedVersions: [...ALL_SUPPORTED_VERSIONS],
        capabilities: modernCapabilities(),
        ...(text ? { instructions: text } : {}),
        ttlMs: 60_000,
        cacheScope: 'public',
      }),
      record: NO_RECORD,
    };
  };

  const common: Record<string, Handler> = {
    'tools/list': list,
    'prompts/list': list,
    'resources/list': list,
    'resources/templates/list': list,
    ...targets,
  };
  const modern: Record<string, Handler> = { ...common, 'server/discover': discover, ...(tasks ? tasks.handlers('modern') : {}) };
  const legacy: Record<string, Handler> = {
    ...common,
    ...(tasks ? tasks.handlers('legacy') : {}),
    ping: async () => EMPTY_RESULT,
    'logging/setLevel': async () => EMPTY_RESULT,
    ...(deps.subscriptions ? { 'resources/subscribe': deps.subscriptions.subscribe, 'resources/unsubscribe': deps.subscriptions.unsubscribe } : {}),
  };

  return {
    knows: (method, era) => method in (era === 'modern' ? modern : legacy),
    // Not async: the handler's own promise is the answer, with no wrapper promise around it.
    handle(call) {
      deps.noteCaller?.(call);
      const handler = (call.era === 'modern' ? modern : legacy)[call.method];
      if (!handler) return Promise.resolve({ reply: err({ kind: 'method_not_found', method: call.method }), record: NO_RECORD });
      return handler(call);
    },
    capabilities,
    legacyCapabilities,
    instructions,
  };
}

// Tasks through the gateway (README, Tasks): a task-augmented tools/call runs
// the one target sequence like any call (policy, approval, audit at creation), and the task it
// creates is handed to the client under an id of the gateway's (task-ids.ts), bound to the
// caller; tasks/get, tasks/result, tasks/list and tasks/cancel (2025-11-25 core), or
// tasks/get, tasks/update and tasks/cancel (the 2026-07-28 extension), go to the upstream that
// holds the task, for its creator only. Anyone else, a changed id, and a task that does not
// exist all get the same -32602 "Unknown task".
// Only clients that declared tasks are offered any of it; the upstream's own judgement of a
// task (its status, its result) is passed through. Tasks of an upstream of the other era are
// bridged: a 2025-11-25 upstream's to 2026-07-28 clients (bridge-to-modern.ts), a 2026-07-28
// upstream's to 2025-11-25 clients (bridge-to-legacy.ts).
import type { Catalog } from '../catalog/catalog.ts';
import type { Call, Handled, Reply } from '../protocol/call.ts';
import type { ClientAsk } from '../protocol/client-ask.ts';
import { NO_RECORD } from '../protocol/call.ts';
import { INTERNAL_ERROR } from '../protocol/errors.ts';
import { isJsonObject, type JsonObject, type JsonRpcNotification } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';
import type { Era } from '../protocol/versions.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { unknownError } from '../policy/enforcer.ts';
import type { TaskRef } from './task-ids.ts';
import type { EndSeen } from './task-ledger.ts';
import type { TaskRuntime } from './task-runtime.ts';
import { requiresTask } from './task-list-view.ts';
import { modernCreated } from './task-bridge.ts';
import { bridgeToModern, taskRecord, type BridgeDeps, type OpenedTask, type TaskSend } from './bridge-to-modern.ts';
import { bridgeToLegacy, coreTask } from './bridge-to-legacy.ts';
import { createTaskList } from './task-list.ts';
import { clientDeclaresTasks, createdTask, statusOf, upstreamTasksOf, withClientIds, withCreatedId, TASK_STATUS_NOTIFICATION, TASKS_EXTENSION } from './task-shapes.ts';

type Handler = (call: Call) => Promise<Handled>;

const UNKNOWN_TASK = 'Unknown task';
const NOT_OFFERED = Object.freeze({ effect: 'hidden' as const, ruleId: 'tasks', reason: 'runs only as a task, which this client cannot run here' });

export interface TaskMethods {
  /** tools/call, with task creation: `inner` is the target sequence's tools/call. */
  call(call: Call, inner: Handler): Promise<Handled>;
  /** The handlers of the task methods of one era. */
  handlers(era: Era): Record<string, Handler>;
  /** The era in which an upstream offers tasks, if it does. */
  offers(upstream: string): Era | undefined;
  /** Whether a client of `era` can run the upstream's tasks (the same era, or bridged: any). */
  reaches(era: Era, upstream: string): boolean;
  /** Whether some upstream offers tasks in `era` (what to advertise), or in either era. */
  offered(era?: Era): boolean;
  /** Whether a call may involve tasks: some upstream offers them, or is reached per user and
   * has not shown its capabilities yet (they are learnt from a user's connection). */
  mayRun(): boolean;
}

export function createTaskMethods(runtime: TaskRuntime, catalog: Catalog, upstreams: readonly Upstream[]): TaskMethods {
  const { ids, ledger } = runtime;
  const eraOf = (u: Upstream | undefined): Era | undefined => (u ? upstreamTasksOf(u) : undefined);
  /** Whether a client of `era` can run this upstream's tasks: in either era, the other one bridged. */
  const reaches = (_era: Era, u: Upstream | undefined): boolean => eraOf(u) !== undefined;
  const clientIds = (call: Call, upstream: string) => (taskId: string) => ids.mint({ upstream, taskId }, call.authContext);
  /** A request the upstream's task asks on a tasks/result stream names the task by the client's id. */
  const relatedAsk = (call: Call, upstream: string, ask: ClientAsk): ClientAsk => (method, params, timeoutMs) => ask(method, withClientIds(params, clientIds(call, upstream)), timeoutMs);
  const unknown = (): Handled => ({ reply: err({ kind: 'invalid_params', message: UNKNOWN_TASK }), record: NO_RECORD });
  const notRelatedNotice = (call: Call, upstream: string) => (n: JsonRpcNotification) => {
    if (n.method === TASK_STATUS_NOTIFICATION) return; // the ledger routes these (task-runtime.ts)
    call.notify(isJsonObject(n.params) ? { ...n, params: withClientIds(n.params, clientIds(call, upstream)) } : n);
  };

  /** The upstream and its task behind the client's id, for this caller. */
  const opened = (call: Call): OpenedTask | undefined => {
    const id = call.params.taskId;
    const ref = ids.open(id, call.authContext);
    const upstream = ref && catalog.upstream(ref.upstream);
    if (!ref || !upstream) return undefined;
    return { ref, upstream, id: id as string };
  };

  const send: TaskSend = (call, upstream, method, params, via) =>
    upstream.request({
      method,
      params,
      clientCapabilities: call.clientCapabilities,
      signal: via?.signal ?? call.signal,
      onNotification: via ? () => undefined : notRelatedNotice(call, upstream.name),
      principal: { authContext: call.authContext, subject: call.principal.subject, method: call.principal.method },
      ...(via ? { ask: via.ask } : call.ask ? { ask: relatedAsk(call, upstream.name, call.ask) } : {}),
    });
  const bridging: BridgeDeps = { send, ledger, inputs: runtime.inputs };

  /** tasks/get, tasks/result, tasks/cancel, tasks/update: one task, forwarded under its upstream id. */
  const forward = (seen: EndSeen | undefined): Handler => async (call) => {
    if (!clientDeclaresTasks(call.era, call.clientCapabilities)) return { reply: err({ kind: 'method_not_found', method: call.method }), record: NO_RECORD };
    const o = opened(call);
    if (!o) return unknown();
    // The caller's own task (the id proves it), on an upstream that offers no tasks now: down.
    if (!reaches(call.era, o.upstream)) return { reply: err({ kind: 'upstream_unavailable', upstream: o.upstream.name, reason: 'it offers no tasks now' }), record: taskRecord(o, performance.now()) };
    if (eraOf(o.upstream) !== call.era) return (call.era === 'modern' ? bridgeToModern : bridgeToLegacy)(bridging, call, o);
    const started = performance.now();
    const reply = await send(call, o.upstream, call.method, { ...call.params, taskId: o.ref.taskId });
    const entry = ledger.get(o.id);
    let status: string | undefined;
    if (reply.ok) {
      // tasks/result answers once the task is terminal; its status is the Task's, not in the result.
      status = call.method === 'tasks/result' ? (entry?.ended ?? 'completed') : statusOf(reply.value);
      if (seen) ledger.saw(entry, status, seen);
    }
    return { reply: reply.ok ? ok(withClientIds(reply.value, clientIds(call, o.upstream.name))) : reply, record: taskRecord(o, started, status) };
  };

  /** tasks/list (2025-11-25): the caller's own tasks, paged (task-list.ts). */
  const pages = createTaskList({
    ledger,
    cursorKey: runtime.cursorKey,
    upstreamsOf: (call) => [...ledger.upstreamsOf(call.authContext)].flatMap((name) => {
      const era = eraOf(catalog.upstream(name));
      return era ? [{ name, era }] : [];
    }),
    send: (call, name, params) => {
      const upstream = catalog.upstream(name);
      return upstream ? send(call, upstream, 'tasks/list', params) : Promise.resolve(err({ kind: 'upstream_unavailable', upstream: name, reason: 'no longer configured' }));
    },
    clientId: (call, upstream, taskId) => clientIds(call, upstream)(taskId),
  });
  const list: Handler = (call) => (clientDeclaresTasks(call.era, call.clientCapabilities) ? pages(call) : Promise.resolve({ reply: err({ kind: 'method_not_found', method: call.method }), record: NO_RECORD }));

  /** tools/call once its tool is known: synchronous up to `inner` when no task is involved, so a
   * plain call reaches the target sequence with no promise of its own. */
  const toolsCall = (call: Call, inner: Handler, name: string, found: Awaited<ReturnType<Catalog['resolve']>>): Promise<Handled> => {
    const declared = clientDeclaresTasks(call.era, call.clientCapabilities);
    const upstream = found?.upstream;
    const runsHere = upstream !== undefined && reaches(call.era, upstream);
    const bridge = runsHere && eraOf(upstream) !== call.era;
    const required = found !== undefined && requiresTask(found.item);
    if (required && !(runsHere && (declared || call.era === 'modern'))) {
      // A task-only tool this client cannot run as a task is not listed to it
      // (task-list-view.ts), and answers as one that does not exist.
      const target = { upstream: found.upstream.name, name, upstreamName: found.name };
      return Promise.resolve({ reply: err(unknownError({ kind: 'tool', name })), record: { target, decision: NOT_OFFERED } });
    }
    if (required && bridge && !declared && call.era === 'modern') {
      // What a 2026-07-28 server answers itself (extension io.modelcontextprotocol/tasks).
      const target = { upstream: found.upstream.name, name, upstreamName: found.name };
      return Promise.resolve({ reply: err({ kind: 'missing_capability', message: `Tool ${name} runs only as a task: declare the ${TASKS_EXTENSION} extension`, required: { extensions: { [TASKS_EXTENSION]: {} } } }), record: { target } });
    }
    if (!declared) {
      // A 2025-11-25 client that did not declare tasks is not given one: the call runs as a plain one.
      if (call.era === 'legacy') {
        if (!isJsonObject(call.params.task)) return inner(call);
        const { task: _notOffered, ...params } = call.params;
        return inner({ ...call, params });
      }
      // A 2026-07-28 upstream MUST NOT answer with a task here (it was not told of the
      // extension); if one does, the client could never poll it.
      return inner(call).then((handled) => (handled.reply.ok && handled.reply.value.resultType === 'task' ? { reply: refusedTask(handled.record.target?.upstream ?? 'unknown'), record: handled.record } : handled));
    }
    if (!upstream || !runsHere) return inner(call);
    // Bridged: to a 2025-11-25 upstream the gateway asks for the task the 2026-07-28 client
    // cannot ask for (only for a task-only tool; other tools run plain, which the extension
    // allows); to a 2026-07-28 one it declares the extension for a 2025-11-25 client that
    // asked for a task (params.task), and the upstream decides.
    const asks = call.era === 'modern' ? required : isJsonObject(call.params.task);
    if (bridge && !asks) return inner(call);
    return createTask(call, inner, name, upstream, bridge);
  };

  /** The call asks for a task (or is bridged to one): sent, and the task it made recorded. */
  const createTask = async (call: Call, inner: Handler, name: string, upstream: Upstream, bridge: boolean): Promise<Handled> => {
    // Never relayed unread: the task it makes is read here, and its id replaced by the gateway's.
    const { relay: _readHere, ...sent } = bridge ? bridgedCall(call) : call;
    const handled = await inner({ ...sent, notify: notRelatedNotice(call, upstream.name) });
    const made = handled.reply.ok ? createdTask(handled.reply.value, eraOf(upstream)!) : undefined;
    if (!handled.reply.ok || !made) return handled;
    const id = ids.mint({ upstream: upstream.name, taskId: made.taskId }, call.authContext);
    const entry = ledger.add(
      {
        id,
        upstream: upstream.name,
        upstreamTaskId: made.taskId,
        era: call.era,
        authContext: call.authContext,
        principal: { subject: call.principal.subject, method: call.principal.method },
        tool: name,
        ...(call.requestId !== undefined ? { requestId: call.requestId } : {}),
        ...(call.sessionId !== undefined ? { sessionId: call.sessionId } : {}),
      },
      made.ttlMs,
    );
    ledger.saw(entry, made.status, 'created');
    runtime.created(entry);
    const reply = !bridge ? withCreatedId(handled.reply.value, call.era, id) : call.era === 'modern' ? modernCreated(handled.reply.value, id) : { task: coreTask(handled.reply.value, id) };
    return { reply: ok(reply), record: { ...handled.record, task: { id, status: made.status } } };
  };

  return {
    call(call, inner) {
      const name = typeof call.params.name === 'string' ? call.params.name : '';
      const found = catalog.resolve('tools', name, call.authContext);
      return found instanceof Promise ? found.then((f) => toolsCall(call, inner, name, f)) : toolsCall(call, inner, name, found);
    },
    handlers(era): Record<string, Handler> {
      if (era === 'legacy') return { 'tasks/get': forward('tasks/get'), 'tasks/result': forward('tasks/result'), 'tasks/list': list, 'tasks/cancel': forward('tasks/cancel') };
      return { 'tasks/get': forward('tasks/get'), 'tasks/update': forward(undefined), 'tasks/cancel': forward(undefined) };
    },
    offers: (name) => eraOf(upstreams.find((u) => u.name === name)),
    reaches: (era, name) => reaches(era, upstreams.find((u) => u.name === name)),
    offered: (era) => upstreams.some((u) => (era === undefined ? eraOf(u) !== undefined : eraOf(u) === era)),
    mayRun: () => upstreams.some((u) => eraOf(u) !== undefined || (u.status().userAuth !== undefined && u.identity() === undefined)),
  };
}

/** A task-augmented tools/call as the upstream of the other era asks for it: `params.task`
 * for a 2025-11-25 upstream; the extension declared, and no `params.task`, for a 2026-07-28 one. */
function bridgedCall(call: Call): Call {
  if (call.era === 'modern') return { ...call, params: { ...call.params, task: {} } };
  const { task: _core, ...params } = call.params;
  const extensions = isJsonObject(call.clientCapabilities.extensions) ? call.clientCapabilities.extensions : {};
  return { ...call, params, clientCapabilities: { ...call.clientCapabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } } };
}

/** A task handed to a client that did not declare tasks (an upstream that ignored the
 * declaration): the client could not poll it, so it gets an error instead. */
export function refusedTask(upstream: string): Reply {
  return err({ kind: 'upstream_error', upstream, error: { code: INTERNAL_ERROR, message: `Upstream "${upstream}" answered with a task, which this client did not declare support for` } });
}

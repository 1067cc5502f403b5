// Which tools a tools/list shows one client, as far as tasks go (pure). A tool whose
// `execution.taskSupport` is "required" runs only as a task (MCP 2025-11-25 server/tools,
// tool-level negotiation), so it is shown only to a client that declared tasks in the era its
// upstream offers them, or a 2026-07-28 client when the upstream is a 2025-11-25 one (the
// gateway bridges those: task-bridge.ts); `execution` is shown only to a client that declared
// tasks at all (README, Tasks).
import type { ListFilter } from '../catalog/catalog.ts';
import { isJsonObject, type JsonObject } from '../protocol/message.ts';
import type { Reply } from '../protocol/call.ts';
import type { Era } from '../protocol/versions.ts';

/** Whether a listed tool runs only as a task. */
export function requiresTask(item: JsonObject): boolean {
  return isJsonObject(item.execution) && item.execution.taskSupport === 'required';
}

/** `base` (the policy's view, if any) narrowed to the tools this client can run. */
export function taskListFilter(base: ListFilter | undefined, era: Era, declared: boolean, reaches: (era: Era, upstream: string) => boolean): ListFilter {
  const keepsRequired = (upstream: string): boolean => declared && reaches(era, upstream);
  return {
    key: `${base?.key ?? ''}\u0000tasks:${era}:${declared ? 1 : 0}`,
    keep: (item, origin) => (base === undefined || base.keep(item, origin)) && (!requiresTask(item) || keepsRequired(origin.upstream)),
  };
}

/** A page of tools without `execution`, for a client that did not declare tasks. */
export function withoutExecution(items: readonly JsonObject[]): JsonObject[] {
  return items.map((t) => {
    if (!('execution' in t)) return t;
    const { execution: _hidden, ...rest } = t;
    return rest;
  });
}

/** Tool search's tools/list, with the tool that runs another tool (gatehouse__call_tool)
 * marked `taskSupport: "optional"`: a 2025-11-25 client may ask a task only of a tool that
 * says it takes one (MCP 2025-11-25 server/tools, tool-level negotiation), and through that
 * tool it runs the named tool, which may take one. */
export function withTasksThrough(reply: Reply, callTool: string): Reply {
  if (!reply.ok || !Array.isArray(reply.value.tools)) return reply;
  const tools = reply.value.tools.map((t) => (isJsonObject(t) && t.name === callTool ? { ...t, execution: { taskSupport: 'optional' } } : t));
  return { ...reply, value: { ...reply.value, tools } };
}

// Per-upstream tool sanitation before merging (pure). Tools whose `x-mcp-header`
// annotations are invalid are left out, as the spec requires of HTTP clients (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters);
// an upstream that offers no tasks cannot run a tool whose `execution.taskSupport` is
// "required", so such tools are left out; from an upstream that offers tasks they stay, with
// `execution`, and the list shows them only to clients that declared tasks (tasks/task-list-view.ts;
// README, Tasks). Every drop is reported for the caller to log.
import { scanHeaderAnnotations, type HeaderParam } from '../headers/annotations.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';

export interface DroppedTool {
  tool: string;
  reason: string;
}

export interface FilteredTools {
  tools: JsonObject[];
  headerParams: Map<string, readonly HeaderParam[]>;
  dropped: DroppedTool[];
}

/** `tasks`: the upstream offers task-augmented tools/call (tasks/task-shapes.ts upstreamTasks). */
export function filterTools(tools: readonly JsonObject[], tasks = false): FilteredTools {
  const out: JsonObject[] = [];
  const headerParams = new Map<string, readonly HeaderParam[]>();
  const dropped: DroppedTool[] = [];
  for (const tool of tools) {
    const name = typeof tool.name === 'string' ? tool.name : '';
    if (!isJsonObject(tool.inputSchema)) {
      dropped.push({ tool: name, reason: 'inputSchema is missing or not an object' });
      continue;
    }
    const execution = isJsonObject(tool.execution) ? tool.execution : undefined;
    if (execution?.taskSupport === 'required' && !tasks) {
      dropped.push({ tool: name, reason: 'requires task-augmented execution, which its upstream does not offer' });
      continue;
    }
    const scan = scanHeaderAnnotations(tool.inputSchema);
    if (!scan.ok) {
      dropped.push({ tool: name, reason: scan.error });
      continue;
    }
    if (tasks) out.push(tool);
    else {
      const { execution: _dropped, ...rest } = tool;
      out.push(rest);
    }
    headerParams.set(name, scan.value);
  }
  return { tools: out, headerParams, dropped };
}

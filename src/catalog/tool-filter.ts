// Per-upstream tool sanitation before merging (pure). Tools whose `x-mcp-header`
// annotations are invalid are left out, as the spec requires of HTTP clients (digest c);
// tools that can only run as legacy tasks are left out because the gateway does not
// translate tasks (digest g.3 step 3). Every drop is reported for the caller to log.
import { scanHeaderAnnotations, type HeaderParam } from '../headers/annotations.ts';
import type { JsonObject } from '../jsonrpc/message.ts';
import { isJsonObject } from '../jsonrpc/message.ts';

export interface DroppedTool {
  tool: string;
  reason: string;
}

export interface FilteredTools {
  tools: JsonObject[];
  headerParams: Map<string, readonly HeaderParam[]>;
  dropped: DroppedTool[];
}

export function filterTools(tools: readonly JsonObject[]): FilteredTools {
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
    if (execution?.taskSupport === 'required') {
      dropped.push({ tool: name, reason: 'requires task-augmented execution, which the gateway does not translate' });
      continue;
    }
    const scan = scanHeaderAnnotations(tool.inputSchema);
    if (!scan.ok) {
      dropped.push({ tool: name, reason: scan.error });
      continue;
    }
    const { execution: _dropped, ...rest } = tool;
    out.push(rest);
    headerParams.set(name, scan.value);
  }
  return { tools: out, headerParams, dropped };
}

// Shapes a result for the era the client speaks (pure). Modern results always carry
// `resultType` and the gateway's serverInfo (MCP 2026-07-28, basic/index (resultType)); legacy results carry none of
// the modern-only fields, and nothing the 2025-11-25 schema would reject (README, Protocol eras: bridging).
import { GATEWAY_SERVER_INFO } from '../protocol/implementation.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { META_SERVER_INFO } from '../protocol/meta-keys.ts';
import { type Era } from '../protocol/versions.ts';



const MODERN_ONLY_FIELDS = ['resultType', 'ttlMs', 'cacheScope'] as const;

export function shapeResult(method: string, result: JsonObject, era: Era): JsonObject {
  return era === 'modern' ? shapeModern(method, result) : shapeLegacy(method, result);
}

function shapeModern(method: string, result: JsonObject): JsonObject {
  const meta = isJsonObject(result._meta) ? result._meta : {};
  const out: JsonObject = { ...result, _meta: { ...meta, [META_SERVER_INFO]: GATEWAY_SERVER_INFO } };
  if (typeof out.resultType !== 'string') out.resultType = 'complete';
  // resources/read is cacheable (MCP 2026-07-28, server/utilities/caching); a legacy upstream gives no hints, so: not cacheable.
  if (method === 'resources/read' && out.resultType === 'complete' && typeof out.ttlMs !== 'number') {
    out.ttlMs = 0;
    out.cacheScope = 'private';
  }
  return out;
}

function shapeLegacy(method: string, result: JsonObject): JsonObject {
  const out: JsonObject = { ...result };
  for (const f of MODERN_ONLY_FIELDS) delete out[f];
  if (isJsonObject(out._meta)) {
    const { [META_SERVER_INFO]: _, ...rest } = out._meta;
    if (Object.keys(rest).length > 0) out._meta = rest;
    else delete out._meta;
  }
  if (method === 'tools/list' && Array.isArray(out.tools)) {
    out.tools = out.tools.map((t) => (isJsonObject(t) ? legacyTool(t) : t));
  }
  // 2025-11-25 requires structuredContent to be an object; the text content stays.
  if (method === 'tools/call' && 'structuredContent' in out && !isJsonObject(out.structuredContent)) delete out.structuredContent;
  return out;
}

export function legacyTool(tool: JsonObject): JsonObject {
  const schema = tool.outputSchema;
  if (schema === undefined || (isJsonObject(schema) && schema.type === 'object')) return tool;
  const { outputSchema: _, ...rest } = tool;
  return rest;
}

// The tool results of gatehouse__search_tools and gatehouse__describe_tools: text a model
// reads (one line per match, or the definitions as JSON) and the same as structuredContent
// matching the tools' outputSchemas (meta-tools.ts). Pure.
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { CALL_TOOL_NAME, DESCRIBE_TOOL_NAME } from './catalog-summary.ts';
import type { IndexedTool } from './search-index.ts';

const MAX_LINE_DESCRIPTION = 160;

/** The first sentence or line of a description, at most MAX_LINE_DESCRIPTION characters. */
export function oneLine(description: unknown): string {
  if (typeof description !== 'string') return '';
  const first = description.trim().split(/\n|(?<=[.!?])\s/, 1)[0] ?? '';
  return first.length > MAX_LINE_DESCRIPTION ? `${first.slice(0, MAX_LINE_DESCRIPTION - 1)}…` : first;
}

function titleOf(item: JsonObject): string | undefined {
  if (typeof item.title === 'string') return item.title;
  return isJsonObject(item.annotations) && typeof item.annotations.title === 'string' ? item.annotations.title : undefined;
}

function argumentNames(item: JsonObject): string[] {
  const schema = isJsonObject(item.inputSchema) ? item.inputSchema : {};
  return isJsonObject(schema.properties) ? Object.keys(schema.properties) : [];
}

export function searchResult(query: string, tools: readonly IndexedTool[], total: number): JsonObject {
  const summaries = tools.map((t) => {
    const title = titleOf(t.item);
    return { name: t.name, ...(title ? { title } : {}), description: oneLine(t.item.description), upstream: t.upstream };
  });
  const lines = tools.map((t, i) => {
    const s = summaries[i]!;
    const args = argumentNames(t.item);
    return `${i + 1}. ${s.name}${s.title ? ` (${s.title})` : ''}: ${s.description || 'no description'}${args.length ? ` [arguments: ${args.join(', ')}]` : ''}`;
  });
  const text = tools.length === 0
    ? `No tool matches "${query}" among the ${total} you can use. Try other words: what the tool acts on ("issue", "invoice", "file") or what it does ("create", "send").`
    : `${tools.length} of ${total} tools match "${query}", best first:\n${lines.join('\n')}\n\nCall ${DESCRIBE_TOOL_NAME} with the names you want for their input schemas, then ${CALL_TOOL_NAME} to run one.`;
  return { content: [{ type: 'text', text }], structuredContent: { tools: summaries, total } };
}

export function describeResult(found: readonly JsonObject[], unknown: readonly string[]): JsonObject {
  const parts = found.map((t) => JSON.stringify(t));
  if (unknown.length) parts.push(`Unknown tools: ${unknown.join(', ')}`);
  return { content: [{ type: 'text', text: parts.join('\n') }], structuredContent: { tools: [...found], unknown: [...unknown] } };
}

// JSON of list results (tools/list and friends) with each item's text cached by the item's
// identity: merged-catalog items are shared objects that are never changed once merged (a
// new list version brings new objects), so a warm 1,000-tool list costs a join of cached
// strings, not a JSON.stringify of every tool on every request. The era's shaping of an
// item (era-result.ts) is applied before its text is cached, once per era.
import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { LIST_METHOD_BY_NAME } from '../protocol/list-kinds.ts';
import type { Era } from '../protocol/versions.ts';
import { legacyTool, shapeResult } from './era-result.ts';


const itemText: Record<Era, WeakMap<JsonObject, string>> = { legacy: new WeakMap(), modern: new WeakMap() };

function textOf(method: string, item: JsonValue, era: Era): string {
  if (!isJsonObject(item)) return JSON.stringify(item);
  const cache = itemText[era];
  let text = cache.get(item);
  if (text === undefined) {
    text = JSON.stringify(era === 'legacy' && method === 'tools/list' ? legacyTool(item) : item);
    cache.set(item, text);
  }
  return text;
}

/** The shaped result of a list method as JSON text; undefined for any other result. */
export function listResultJson(method: string, result: JsonObject, era: Era): string | undefined {
  const field = LIST_METHOD_BY_NAME.get(method)?.field;
  const items = field === undefined ? undefined : result[field];
  if (!Array.isArray(items)) return undefined;
  const { [field!]: _, ...rest } = result;
  const restText = JSON.stringify(shapeResult(method, rest, era));
  const parts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) parts[i] = textOf(method, items[i]!, era);
  return `{${JSON.stringify(field)}:[${parts.join(',')}]${restText === '{}' ? '}' : `,${restText.slice(1)}`}`;
}

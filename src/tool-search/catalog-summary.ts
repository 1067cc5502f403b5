// The description of the search tool, written from the caller's visible catalog: how many
// tools, from which upstreams, and what each upstream's tools are about (the commonest words
// of its tool names, leaving out generic verbs). An agent decides whether to search from
// this text alone, so it has to say what can be found; a search tool described only as
// "search tools" is one agents skip. Pure; bounded in length whatever the catalog.
import { isJsonObject } from '../protocol/message.ts';
import type { IndexedTool } from './search-index.ts';
import { stem, words } from './tokenize.ts';

export const SEARCH_TOOL_NAME = 'gatehouse__search_tools';
export const DESCRIBE_TOOL_NAME = 'gatehouse__describe_tools';
export const CALL_TOOL_NAME = 'gatehouse__call_tool';

const MAX_UPSTREAMS_SHOWN = 40;
const TOPICS_PER_UPSTREAM = 4;
const GENERIC = new Set([
  'a', 'all', 'an', 'and', 'by', 'for', 'from', 'in', 'of', 'on', 'or', 'the', 'to', 'with', 'id', 'ids', 'info', 'tool', 'tools', 'data',
  'get', 'list', 'create', 'update', 'delete', 'remove', 'add', 'set', 'search', 'find', 'read', 'write', 'fetch', 'run', 'show', 'new',
  'query', 'make', 'put', 'post', 'edit', 'check', 'do', 'is', 'my', 'v1', 'v2',
]);

/** The commonest words of the tools' own names, counted by stem ("issue" and "issues" are
 * one topic) and shown in their shortest spelling. */
function topics(tools: readonly IndexedTool[]): string[] {
  const counts = new Map<string, { n: number; word: string }>();
  for (const t of tools) {
    for (const w of new Set(words(t.original))) {
      if (w.length < 2 || GENERIC.has(w) || /^\d+$/.test(w)) continue;
      const key = stem(w);
      const c = counts.get(key);
      if (!c) counts.set(key, { n: 1, word: w });
      else {
        c.n++;
        if (w.length < c.word.length) c.word = w;
      }
    }
  }
  return [...counts.values()].sort((a, b) => b.n - a.n || (a.word < b.word ? -1 : 1)).slice(0, TOPICS_PER_UPSTREAM).map((c) => c.word);
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** `tools` in catalog order (upstreams in config order). */
export function searchToolDescription(tools: readonly IndexedTool[]): string {
  if (tools.length === 0) {
    return 'Searches the tools this gateway offers you. Right now there are none: no upstream server offers you a tool. Call it again after a tools list_changed notification.';
  }
  const byUpstream = new Map<string, IndexedTool[]>();
  for (const t of tools) {
    const list = byUpstream.get(t.upstream);
    if (list) list.push(t);
    else byUpstream.set(t.upstream, [t]);
  }
  const servers = [...byUpstream].slice(0, MAX_UPSTREAMS_SHOWN).map(([name, list]) => {
    const about = topics(list);
    return `${name} (${plural(list.length, 'tool')}${about.length ? `: ${about.join(', ')}` : ''})`;
  });
  const more = byUpstream.size - servers.length;
  let readOnly = 0;
  let destructive = 0;
  for (const t of tools) {
    const a = isJsonObject(t.item.annotations) ? t.item.annotations : {};
    if (a.readOnlyHint === true) readOnly++;
    else if (a.destructiveHint === true) destructive++;
  }
  const hints = readOnly || destructive ? ` ${readOnly} are marked read-only and ${destructive} destructive.` : '';
  return (
    `Finds tools among the ${plural(tools.length, 'tool')} this gateway offers you from ${plural(byUpstream.size, 'server')}, which are not listed one by one. ` +
    `Describe what you want to do in a few words (an action and its object, e.g. "create issue" or "send message"), or give part of a tool's name; ` +
    `it returns the best matches with their names, titles and one-line descriptions. Then call ${DESCRIBE_TOOL_NAME} for a tool's input schema and ${CALL_TOOL_NAME} to run it. ` +
    `Servers: ${servers.join('; ')}${more > 0 ? `; and ${plural(more, 'more server')}` : ''}.${hints}`
  );
}

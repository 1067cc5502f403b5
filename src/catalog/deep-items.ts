// List items an upstream sends are walked by much of the gateway (the list version's
// canonical JSON, pin hashes, schema compilation, the header-annotation scan, the JSON written
// to every client), and one tool whose `_meta`, `outputSchema` or `annotations` nested a few
// thousand levels made tools/list fail for every caller of every upstream. An item nested
// deeper than limits.maxJsonDepth is left out of its upstream's part, before any of that,
// and reported; the rest of the list is served as usual. Pure.
import { nestsDeeperThan } from '../protocol/json-depth.ts';
import type { JsonObject } from '../protocol/message.ts';

export interface DeepItem {
  /** The item's name, uri or uriTemplate (cut to 200 characters), or its position. */
  item: string;
  reason: string;
}

const NAME_FIELDS = ['name', 'uri', 'uriTemplate'] as const;
const SHOWN = 200;

export function dropDeepItems(items: readonly JsonObject[], maxDepth: number): { items: JsonObject[]; dropped: DeepItem[] } {
  const kept: JsonObject[] = [];
  const dropped: DeepItem[] = [];
  items.forEach((item, position) => {
    if (!nestsDeeperThan(item, maxDepth)) {
      kept.push(item);
      return;
    }
    const named = NAME_FIELDS.map((f) => item[f]).find((v): v is string => typeof v === 'string');
    dropped.push({ item: named === undefined ? `#${position}` : named.slice(0, SHOWN), reason: `nested deeper than ${maxDepth} levels (limits.maxJsonDepth)` });
  });
  return { items: kept, dropped };
}

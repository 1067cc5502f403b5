// The hash an overlay records of the upstream definition it was written against. Tools use
// the tool-pin hash in its version 2 form (policy/tool-definition-hash.ts: description,
// inputSchema, outputSchema, title and annotations), because an overlay re-describes and
// re-annotates a tool: a change to any of them upstream may make the overlay's words wrong.
// Prompts have no pin format of their own, so theirs is, in the same canonical JSON (RFC 8785):
//   { "arguments": <arguments or null>, "description": <description or null>,
//     "kind": "prompt", "title": <title or null> }
// Pure, memoised per definition object (lists hand out the same objects until they change).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/canonical-json.ts';
import type { JsonObject } from '../protocol/message.ts';
import { toolDefinitionHash } from '../policy/tool-definition-hash.ts';

const memo = { tools: new WeakMap<JsonObject, string>(), prompts: new WeakMap<JsonObject, string>() };

export function overlayHash(kind: 'tools' | 'prompts', item: JsonObject): string {
  const hit = memo[kind].get(item);
  if (hit !== undefined) return hit;
  const hash =
    kind === 'tools'
      ? toolDefinitionHash(item, 2)
      : createHash('sha256')
          .update(canonicalJson({ arguments: item.arguments ?? null, description: item.description ?? null, kind: 'prompt', title: item.title ?? null }), 'utf8')
          .digest('hex');
  memo[kind].set(item, hash);
  return hash;
}

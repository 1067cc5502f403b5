// Tool pinning against rug-pulls: an upstream that changes what a tool says or accepts after
// it was reviewed (MCP 2026-07-28, server/tools, security: tool definitions are untrusted input) is caught by comparing
// a hash of the definition with the pin in the policy. Pure; quarantining a tool whose hash
// no longer matches is the catalog's job, writing pins is `gatehouse policy pin`'s.
//
// What is hashed, exactly: the SHA-256 (hex, lowercase) of the UTF-8 canonical JSON of
//   { "description": <description or null>, "inputSchema": <inputSchema or null>,
//     "outputSchema": <outputSchema or null> }
// Canonical JSON follows RFC 8785 (JCS): object keys sorted by UTF-16 code units at every
// depth, no whitespace, strings and numbers as ECMAScript's JSON.stringify writes them (the
// same implementation as the audit trail's hashes: audit/canonical-json.ts).
// Not hashed in version 1 (the default): the name (the pin is keyed by it), `title` and
// `annotations` (display hints the upstream may localize or tune), `_meta`, `icons` and any
// other field.
//
// Version 2 (opt-in: `version: 2` on the pin, written by `gatehouse policy pin
// --include-annotations`) hashes `title` and `annotations` as well, because clients act on
// annotations (MCP 2026-07-28, server/tools: destructiveHint, readOnlyHint, openWorldHint
// decide whether a host asks the user first), so a flip of destructiveHint from true to
// false is a change worth quarantining:
//   { "annotations": <annotations or null>, "description": …, "inputSchema": …,
//     "outputSchema": …, "title": <title or null>, "version": 2 }
// A version-1 pin keeps hashing exactly what it always did.

import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/canonical-json.ts';

export interface HashableTool {
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  title?: string;
  annotations?: unknown;
}

export type PinVersion = 1 | 2;

export const PIN_VERSIONS: readonly PinVersion[] = [1, 2];

export function toolDefinitionHash(tool: HashableTool, version: PinVersion = 1): string {
  const hashed =
    version === 1
      ? { description: tool.description ?? null, inputSchema: tool.inputSchema ?? null, outputSchema: tool.outputSchema ?? null }
      : {
          annotations: tool.annotations ?? null,
          description: tool.description ?? null,
          inputSchema: tool.inputSchema ?? null,
          outputSchema: tool.outputSchema ?? null,
          title: tool.title ?? null,
          version: 2,
        };
  return createHash('sha256').update(canonicalJson(hashed), 'utf8').digest('hex');
}

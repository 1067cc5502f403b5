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
// Not hashed: the name (the pin is keyed by it), `title` and `annotations` (display hints
// the upstream may localize or tune; they do not change what the model is told the tool
// does or what the call carries), `_meta`, `icons` and any other field.

import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/canonical-json.ts';

export interface HashableTool {
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  title?: string;
  annotations?: unknown;
}

export function toolDefinitionHash(tool: HashableTool): string {
  const hashed = {
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
  };
  return createHash('sha256').update(canonicalJson(hashed), 'utf8').digest('hex');
}

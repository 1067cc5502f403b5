// The `pins:` YAML that `gatehouse policy pin` writes: one pin per tool of the current tools
// list, hashed by toolDefinitionHash, sorted by name so that re-pinning an unchanged server
// gives the same text (and a reviewable diff when it changed). Reaching the upstreams and
// writing the file are the command's job.

import { toolDefinitionHash, type HashableTool, type PinVersion } from './tool-definition-hash.ts';

export interface PinnableTool extends HashableTool {
  /** Exposed (prefixed) name, as clients and policies see it. */
  name: string;
}

export interface PinsYamlOptions {
  /** A comment line saying where the hashes came from, e.g. the command and the time. */
  header?: string;
  /** Path from the file to schema/policy.schema.json, for the editor hint. */
  schemaPath?: string;
  /** 2: the hashes cover title and annotations too, and each pin says `version: 2`. */
  version?: PinVersion;
}

export function formatPinsYaml(tools: readonly PinnableTool[], opts: PinsYamlOptions = {}): string {
  const lines = [`# yaml-language-server: $schema=${opts.schemaPath ?? '../schema/policy.schema.json'}`];
  if (opts.header !== undefined) for (const line of opts.header.split('\n')) lines.push(`# ${line}`);
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (sorted.length === 0) return [...lines, 'pins: []', ''].join('\n');
  lines.push('pins:');
  // JSON strings are YAML flow scalars, so any name survives quoting.
  const version = opts.version ?? 1;
  const suffix = version === 1 ? '' : `, version: ${version}`;
  for (const tool of sorted) lines.push(`  - { tool: ${JSON.stringify(tool.name)}, sha256: ${toolDefinitionHash(tool, version)}${suffix} }`);
  return lines.join('\n') + '\n';
}

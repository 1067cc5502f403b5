// Boot-time config loading: read the file, parse YAML keeping positions, validate against
// CONFIG_SCHEMA, interpolate ${ENV}, normalize with defaults (reading the files the config
// names), check what a schema cannot, freeze. Every stage runs and reports all of its
// problems in one ConfigError whose issues point into the file: when the schema rejects
// some values, the later stages run on the rest of the document (prune-document.ts), and a
// later problem at, inside or around a value an earlier stage already blamed is left out
// as its likely consequence. Starting upstreams, and whether `command` or `cwd` exist, are
// left to upstream/ (and to `gatehouse config check`, check-referenced-files.ts).

import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { allOverlays, checkConfig } from './check-config.ts';
import { ConfigError, type ConfigIssue } from './config-error.ts';
import { CONFIG_SCHEMA, type RawConfig } from './config-schema.ts';
import { deepFreeze } from './deep-freeze.ts';
import { interpolateEnv } from './interpolate-env.ts';
import { normalizeConfig, type ConfigOverrides } from './normalize-config.ts';
import { pruneDocument, relatedPaths } from './prune-document.ts';
import { createSchemaCheck, type SchemaIssue } from './schema-issues.ts';
import { createPositionLookup, type PositionLookup } from './source-position.ts';
import type { GatewayConfig } from './types.ts';

export type { ConfigOverrides } from './normalize-config.ts';

const checkConfigSchema = createSchemaCheck(CONFIG_SCHEMA);

const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory, not a file',
};

export function loadConfig(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
): GatewayConfig {
  const { config, issues } = collectConfigFile(file, env, overrides);
  if (config === undefined) throw new ConfigError(issues);
  return config;
}

/** loadConfig without throwing: every problem of every stage (gatehouse config check). */
export function collectConfigFile(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
): CollectedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const reason = READ_FAILURES[code] ?? (err as Error).message;
    return { config: undefined, partial: undefined, issues: [{ file, path: '', message: `cannot read the config file: ${reason}` }] };
  }
  return collectConfig(text, file, env, overrides);
}

/** loadConfig without the disk: `file` names the source in messages and anchors `cwd`. */
export function parseConfig(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
): GatewayConfig {
  const { config, issues } = collectConfig(text, file, env, overrides);
  if (config === undefined) throw new ConfigError(issues);
  return config;
}

export interface CollectedConfig {
  /** The frozen config, when there is no problem at all. */
  config: GatewayConfig | undefined;
  /** What normalisation made of the part the schema accepted (not frozen, possibly
   * incomplete): enough to find the files the config names. Undefined when nothing was left. */
  partial: GatewayConfig | undefined;
  issues: ConfigIssue[];
  /** An issue at a path of `partial`, placed in the file as written (with `partial`). */
  issueAt?: (path: string, message: string) => ConfigIssue;
}

/** Every problem of every stage, without throwing (gatehouse config check). */
export function collectConfig(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
): CollectedConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const stop = (issues: ConfigIssue[]): CollectedConfig => ({ config: undefined, partial: undefined, issues });
  if (doc.errors.length > 0) {
    return stop(
      doc.errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        return { file, path: '', line, column: col, message: `invalid YAML: ${e.message}` };
      }),
    );
  }
  if (doc.contents === null) {
    return stop([{ file, path: '', message: 'the file is empty; expected a mapping with at least `upstreams`' }]);
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (err) {
    // yaml refuses alias bombs here ("excessive alias count").
    return stop([{ file, path: '', message: `invalid YAML: ${(err as Error).message}` }]);
  }

  const locate = createPositionLookup(doc, lines);
  const issue = (path: string, message: string, atKey = false): ConfigIssue =>
    withPosition({ file, path, message }, locate, atKey);

  const issues: ConfigIssue[] = [];
  // Paths (in the document as written) an earlier stage has reported a problem at.
  const blamed: string[] = [];
  const report = (path: string, message: string, atKey = false, fromCommandLine = false): void => {
    if (blamed.some((b) => relatedPaths(b, path))) return;
    issues.push(fromCommandLine ? { file, path, message } : issue(path, message, atKey));
  };

  const schemaIssues = checkConfigSchema(data);
  const interpolated = interpolateEnv(data, env);
  for (const i of schemaIssues) issues.push(issue(i.path, i.message, i.atKey));
  for (const i of interpolated.issues) issues.push(issue(i.path, i.message));
  blamed.push(...schemaIssues.map((i) => i.path), ...interpolated.issues.map((i) => i.path));

  // The schema judges the document as written (interpolation only ever yields strings where
  // it accepted strings), so the part it accepts is found there and cut the same way from
  // the interpolated document, whose shape is the same.
  const pruned = acceptedPointers(data, schemaIssues);
  const accepted = pruned === undefined ? undefined : pruneDocument(interpolated.value, pruned);
  if (accepted === undefined) return { config: undefined, partial: undefined, issues };
  const { config, issues: normalizeIssues } = normalizeConfig(accepted.value as RawConfig, file, overrides);
  const normalized = normalizeIssues.map((i) => ({ ...i, path: i.fromCommandLine ? i.path : accepted.toOriginal(i.path) }));
  for (const i of normalized) report(i.path, i.message, false, i.fromCommandLine === true);
  blamed.push(...normalized.map((i) => i.path));
  for (const i of checkConfig(config)) report(accepted.toOriginal(i.path), i.message, i.atKey);
  // Overlays are judged again when they meet their upstream's lists: those messages name the line too.
  for (const o of allOverlays(config)) {
    const line = locate(accepted.toOriginal(o.source.path), false)?.line;
    if (line !== undefined) o.source.line = line;
  }
  return {
    config: issues.length === 0 ? deepFreeze(config) : undefined,
    partial: config,
    issues,
    issueAt: (path, message) => issue(accepted.toOriginal(path), message),
  };
}

// Pruning an item can make its parent invalid in turn (a required key gone, an array left
// empty), so the schema runs again on what is left until it passes; a handful of rounds is
// always enough for the config's depth.
const MAX_PRUNE_ROUNDS = 8;

function acceptedPointers(data: unknown, first: readonly SchemaIssue[]): ReadonlySet<string> | undefined {
  const pruned = new Set(first.map((i) => i.path));
  for (let round = 0; round < MAX_PRUNE_ROUNDS; round++) {
    const part = pruneDocument(data, pruned);
    if (part === undefined) return undefined;
    const more = checkConfigSchema(part.value);
    if (more.length === 0) return pruned;
    const before = pruned.size;
    for (const i of more) pruned.add(part.toOriginal(i.path));
    if (pruned.size === before) return undefined;
  }
  return undefined;
}

function withPosition(base: ConfigIssue, locate: PositionLookup, atKey: boolean): ConfigIssue {
  const position = locate(base.path, atKey);
  return position === undefined ? base : { ...base, line: position.line, column: position.column };
}

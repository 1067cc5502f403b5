// Boot-time config loading: read the file, parse YAML keeping positions, validate against
// CONFIG_SCHEMA, interpolate ${ENV}, normalize with defaults, check what a schema cannot,
// freeze. Each stage reports all of its problems at once as one ConfigError whose issues
// point into the file; a later stage runs only on what the earlier ones accepted.
// Starting upstreams, and whether `command` or `cwd` exist, are left to upstream/.

import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { checkConfig } from './check-config.ts';
import { ConfigError, type ConfigIssue } from './config-error.ts';
import { CONFIG_SCHEMA, type RawConfig } from './config-schema.ts';
import { deepFreeze } from './deep-freeze.ts';
import { interpolateEnv } from './interpolate-env.ts';
import { normalizeConfig, type ConfigOverrides } from './normalize-config.ts';
import { createSchemaCheck } from './schema-issues.ts';
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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const reason = READ_FAILURES[code] ?? (err as Error).message;
    throw new ConfigError([{ file, path: '', message: `cannot read the config file: ${reason}` }]);
  }
  return parseConfig(text, file, env, overrides);
}

/** loadConfig without the disk: `file` names the source in messages and anchors `cwd`. */
export function parseConfig(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
): GatewayConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        return { file, path: '', line, column: col, message: `invalid YAML: ${e.message}` };
      }),
    );
  }
  if (doc.contents === null) {
    throw new ConfigError([
      { file, path: '', message: 'the file is empty; expected a mapping with at least `upstreams`' },
    ]);
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (err) {
    // yaml refuses alias bombs here ("excessive alias count").
    throw new ConfigError([{ file, path: '', message: `invalid YAML: ${(err as Error).message}` }]);
  }

  const locate = createPositionLookup(doc, lines);
  const issue = (path: string, message: string, atKey = false): ConfigIssue =>
    withPosition({ file, path, message }, locate, atKey);

  const schemaIssues = checkConfigSchema(data);
  const interpolated = interpolateEnv(data, env);
  failIfAny([
    ...schemaIssues.map((i) => issue(i.path, i.message, i.atKey)),
    ...interpolated.issues.map((i) => issue(i.path, i.message)),
  ]);

  const { config, issues } = normalizeConfig(interpolated.value as RawConfig, file, overrides);
  failIfAny(issues.map((i) => (i.fromCommandLine ? { file, path: i.path, message: i.message } : issue(i.path, i.message))));
  failIfAny(checkConfig(config).map((i) => issue(i.path, i.message, i.atKey)));
  return deepFreeze(config);
}

function withPosition(base: ConfigIssue, locate: PositionLookup, atKey: boolean): ConfigIssue {
  const position = locate(base.path, atKey);
  return position === undefined ? base : { ...base, line: position.line, column: position.column };
}

function failIfAny(issues: ConfigIssue[]): void {
  if (issues.length > 0) throw new ConfigError(issues);
}

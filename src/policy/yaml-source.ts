// YAML text -> data plus a position lookup, for policy and policy-test files. Positions come
// from src/config/source-position.ts and issues are ConfigIssues, so policy errors read
// exactly like config errors: `file:line:column /json/pointer: message`.

import { LineCounter, parseDocument } from 'yaml';
import type { ConfigIssue } from '../config/config-error.ts';
import type { SchemaIssue } from '../config/schema-issues.ts';
import { createPositionLookup, type PositionLookup } from '../config/source-position.ts';
import { err, ok, type Result } from '../protocol/result.ts';

export interface YamlSource {
  /** The file as the operator named it, for messages. */
  file: string;
  text: string;
}

export interface ParsedYaml {
  /** `{}` for a file with only comments, so an empty policy file is a valid empty policy. */
  data: unknown;
  locate: PositionLookup;
}

export function parseYamlSource(source: YamlSource): Result<ParsedYaml, ConfigIssue[]> {
  const { file, text } = source;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    return err(
      doc.errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        return { file, path: '', line, column: col, message: `invalid YAML: ${e.message}` };
      }),
    );
  }
  let data: unknown;
  try {
    data = doc.contents === null ? {} : doc.toJS();
  } catch (e) {
    // yaml refuses alias bombs here ("excessive alias count").
    return err([{ file, path: '', message: `invalid YAML: ${(e as Error).message}` }]);
  }
  return ok({ data, locate: createPositionLookup(doc, lines) });
}

/** A ConfigIssue for `path` in `file`, with the line and column when the file has that path. */
export function issueAt(file: string, locate: PositionLookup | undefined, path: string, message: string, atKey = false): ConfigIssue {
  const position = locate?.(path, atKey);
  return position === undefined ? { file, path, message } : { file, path, message, line: position.line, column: position.column };
}

export function schemaIssuesAt(file: string, locate: PositionLookup, issues: readonly SchemaIssue[]): ConfigIssue[] {
  return issues.map((i) => issueAt(file, locate, i.path, i.message, i.atKey));
}

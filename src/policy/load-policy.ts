// Boot-time (and reload-time) policy loading: list the policy directory, read every policy
// file in file-name order, parse the YAML keeping positions, compile. Every problem in every
// file is reported at once as one PolicyError (a ConfigError, src/config/config-error.ts), so
// policy errors look exactly like config errors. Watching the directory and swapping policies is the
// hot-reload wiring's job; it can call tryParsePolicyFiles to keep the old policy on error.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/config-error.ts';
import { err, type Result } from '../protocol/result.ts';
import { PolicyError } from './policy-error.ts';
import { compilePolicy, type CompiledPolicy, type CompileOptions, type LoadedPolicyFile, type PolicyIssue } from './compile-policy.ts';
import { parseYamlSource, type YamlSource } from './yaml-source.ts';

export type PolicySource = YamlSource;

/** Policy files: *.yaml / *.yml, not hidden, not tests (*.test.yaml, run by `gatehouse policy test`). */
export function isPolicyFileName(name: string): boolean {
  return /\.ya?ml$/.test(name) && !isPolicyTestFileName(name) && !name.startsWith('.');
}

export function isPolicyTestFileName(name: string): boolean {
  return /\.test\.ya?ml$/.test(name) && !name.startsWith('.');
}

/** Names in the directory that pass `accept`, in file-name order (UTF-16 code units, not locale). */
export function listDirectory(dir: string, accept: (name: string) => boolean): string[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new ConfigError([{ file: dir, path: '', message: 'the policy directory is not a directory' }]);
    names = readdirSync(dir);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    throw new ConfigError([{ file: dir, path: '', message: `cannot read the policy directory: ${reason}` }]);
  }
  return names.filter(accept).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((name) => join(dir, name));
}

export function readPolicySources(dir: string): PolicySource[] {
  return listDirectory(dir, isPolicyFileName).map((file) => ({ file, text: readSource(file) }));
}

export function readSource(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([{ file, path: '', message: `cannot read the file: ${(e as Error).message}` }]);
  }
}

export function loadPolicyDir(dir: string, opts: CompileOptions = {}): CompiledPolicy {
  return parsePolicyFiles(readPolicySources(dir), opts);
}

/** loadPolicyDir without the disk: sources in load order. Throws PolicyError listing every problem. */
export function parsePolicyFiles(sources: readonly PolicySource[], opts: CompileOptions = {}): CompiledPolicy {
  const result = tryParsePolicyFiles(sources, opts);
  if (!result.ok) throw new PolicyError(result.error);
  return result.value;
}

// An editor or a deploy that truncates a file before writing it can be caught in between by
// the watcher: taken as "no rules", that file's deny rules would vanish while other files'
// allows stand. So an empty file is an error (the running policy stays), not zero rules.
const EMPTY_FILE = 'the file is empty: a policy file needs `rules:` or `pins:` (write `rules: []` for a file with none); an empty file is refused so that one caught half-written never drops its rules';

function isEmptyDocument(data: unknown): boolean {
  return data === null || data === undefined || (typeof data === 'object' && !Array.isArray(data) && Object.keys(data).length === 0);
}

export function tryParsePolicyFiles(sources: readonly PolicySource[], opts: CompileOptions = {}): Result<CompiledPolicy, PolicyIssue[]> {
  const issues: PolicyIssue[] = [];
  const loaded: LoadedPolicyFile[] = [];
  for (const source of sources) {
    const parsed = parseYamlSource(source);
    if (!parsed.ok) issues.push(...parsed.error);
    else if (isEmptyDocument(parsed.value.data)) issues.push({ file: source.file, path: '', message: EMPTY_FILE });
    else loaded.push({ file: source.file, text: source.text, data: parsed.value.data, locate: parsed.value.locate });
  }
  const compiled = compilePolicy(loaded, opts);
  if (!compiled.ok) issues.push(...compiled.error);
  return issues.length > 0 ? err(issues) : compiled;
}

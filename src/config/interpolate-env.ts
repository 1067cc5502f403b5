// ${VAR} interpolation in the string values of a schema-checked config (never in keys).
//   ${VAR}          the variable's value; an unset variable is an error (a set, empty one is "")
//   ${VAR:-default} the value, or `default` when unset or empty (as in POSIX sh)
//   $${             a literal "${"
// Runs after schema validation, so only strings are rewritten: numbers and durations are
// never read from the environment, and a value's type never depends on it.

import { toPointer } from './config-error.ts';

export interface InterpolationIssue {
  path: string;
  message: string;
}

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function interpolateEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
): { value: unknown; issues: InterpolationIssue[] } {
  const issues: InterpolationIssue[] = [];
  const walk = (v: unknown, path: (string | number)[]): unknown => {
    if (typeof v === 'string') return interpolateString(v, env, toPointer(path), issues);
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...path, i]));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, [...path, k])]));
    }
    return v;
  };
  return { value: walk(value, []), issues };
}

function interpolateString(
  text: string,
  env: NodeJS.ProcessEnv,
  path: string,
  issues: InterpolationIssue[],
): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      out += '${';
      i += 3;
      continue;
    }
    if (!text.startsWith('${', i)) {
      out += text[i];
      i += 1;
      continue;
    }
    const end = text.indexOf('}', i + 2);
    if (end === -1) {
      issues.push({ path, message: 'unterminated "${" (write "$${" for a literal "${")' });
      return text;
    }
    const reference = text.slice(i + 2, end);
    const split = reference.indexOf(':-');
    const name = split === -1 ? reference : reference.slice(0, split);
    const fallback = split === -1 ? undefined : reference.slice(split + 2);
    if (!VAR_NAME.test(name)) {
      issues.push({
        path,
        message: `expected \${NAME} or \${NAME:-default} with NAME of letters, digits and "_", got "\${${reference}}"`,
      });
    } else {
      const found = env[name];
      if (fallback !== undefined) {
        out += found === undefined || found === '' ? fallback : found;
      } else if (found === undefined) {
        issues.push({
          path,
          message: `environment variable "${name}" is not set (write \${${name}:-default} to give a default)`,
        });
      } else {
        out += found;
      }
    }
    i = end + 1;
  }
  return out;
}

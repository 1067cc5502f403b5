// The one error type of config loading. Loading is boot-time, so it throws (docs/architecture.md
// house style 3); every problem found is collected first, so an operator fixes a file in
// one pass instead of one error per restart.

export interface ConfigIssue {
  /** The config file as the operator named it. */
  file: string;
  /** JSON pointer (RFC 6901) into the document, e.g. `/upstreams/1/timeout`; '' is the root. */
  path: string;
  /** 1-based position in the file, when the path exists in it. */
  line?: number;
  column?: number;
  /** What was expected and what was found. */
  message: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    const sorted = sortIssues(issues);
    super(sorted.map(formatIssue).join('\n'));
    this.issues = sorted;
  }

  /** One line per issue: `file:line:column /path: message`. */
  format(): string {
    return this.issues.map(formatIssue).join('\n');
  }
}

export function formatIssue(issue: ConfigIssue): string {
  const where =
    issue.line === undefined ? issue.file : `${issue.file}:${issue.line}:${issue.column ?? 1}`;
  // '' is the whole document (or no place in it, as for unreadable files and YAML syntax).
  return issue.path === '' ? `${where}: ${issue.message}` : `${where} ${issue.path}: ${issue.message}`;
}

/** JSON pointer from path segments, escaping `~` and `/` as RFC 6901 section 4 requires. */
export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export function fromPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

// File order reads best; issues without a position (rare: paths the YAML lacks) go last.
// Exact duplicates (ajv can reach one fault through two schema routes) are dropped.
function sortIssues(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  const unique = issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        (a.issue.line ?? Infinity) - (b.issue.line ?? Infinity) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.index - b.index,
    )
    .map((x) => x.issue);
}

// The error loading a policy throws: a ConfigError (callers that handle bad config handle
// this too, and it prints the same `file:line:column /path: message` lines), with its issues
// grouped by file in load order. ConfigError orders by line alone, which is right for its one
// file but interleaves lines of different policy files.

import { ConfigError, formatIssue } from '../config/config-error.ts';
import type { PolicyIssue } from './compile-policy.ts';

export class PolicyError extends ConfigError {
  constructor(issues: readonly PolicyIssue[]) {
    super(issues);
    const files = [...new Set(issues.map((i) => i.file))];
    // Array.prototype.sort is stable, so each file keeps ConfigError's line order.
    const grouped = [...this.issues].sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file));
    (this as { issues: readonly PolicyIssue[] }).issues = grouped;
    (this as { name: string }).name = 'PolicyError';
    this.message = grouped.map(formatIssue).join('\n');
  }
}

// Which records `gatehouse audit query` prints. Pure: records in, yes or no out. Time bounds
// are a half-open range [since, until). Request-only criteria (principal, tool, outcome)
// exclude events; with time bounds only, events are included.
import type { JsonObject } from '../protocol/message.ts';
import { compileGlob, type Glob } from '../policy/glob.ts';

export interface AuditFilterSpec {
  /** Glob over principal.subject. */
  principal?: string;
  /** Glob over the exposed tool / prompt name or URI (`name`). */
  tool?: string;
  outcome?: string;
  /** Milliseconds since the epoch. */
  since?: number;
  until?: number;
}

export type AuditFilter = (record: JsonObject) => boolean;

export function compileAuditFilter(spec: AuditFilterSpec): AuditFilter {
  const principal: Glob | undefined = spec.principal === undefined ? undefined : compileGlob(spec.principal);
  const tool: Glob | undefined = spec.tool === undefined ? undefined : compileGlob(spec.tool);
  const requestOnly = principal !== undefined || tool !== undefined || spec.outcome !== undefined;
  return (record) => {
    if (spec.since !== undefined || spec.until !== undefined) {
      const time = typeof record['time'] === 'string' ? Date.parse(record['time']) : NaN;
      if (Number.isNaN(time)) return false;
      if (spec.since !== undefined && time < spec.since) return false;
      if (spec.until !== undefined && time >= spec.until) return false;
    }
    if (!requestOnly) return true;
    if (record['type'] !== 'request') return false;
    const subject = (record['principal'] as JsonObject | undefined)?.['subject'];
    if (principal !== undefined && !(typeof subject === 'string' && principal.matches(subject))) return false;
    const name = record['name'];
    if (tool !== undefined && !(typeof name === 'string' && tool.matches(name))) return false;
    return spec.outcome === undefined || record['outcome'] === spec.outcome;
  };
}

// One audit line for a human: time, seq, who, what, outcome, duration. `--json` prints the
// stored line instead (for jq and the like).
// The record holds what clients sent (a method, a tool name, a token's subject), so the line
// is made inert before it reaches a terminal: control characters (ESC starts sequences that
// retitle, clear or write the clipboard, ECMA-48) and bidirectional overrides (which reorder
// what is shown, CVE-2021-42574) are written as \uXXXX escapes, as JSON would.
import type { JsonObject } from '../protocol/message.ts';

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function formatAuditLine(record: JsonObject): string {
  return inert(describeRecord(record));
}

function describeRecord(record: JsonObject): string {
  const time = String(record['time'] ?? '?');
  const seq = `#${String(record['seq'] ?? '?')}`;
  if (record['type'] === 'event') {
    return `${time} ${seq} event ${String(record['event'] ?? '?')} ${JSON.stringify(record['detail'] ?? {})}`;
  }
  const principal = record['principal'] as JsonObject | undefined;
  const parts = [
    time,
    seq,
    String(principal?.['subject'] ?? '?'),
    String(record['method'] ?? '?'),
    ...(typeof record['name'] === 'string' ? [record['name']] : []),
    String(record['outcome'] ?? '?') + (record['errorCode'] === undefined ? '' : ` (${String(record['errorCode'])})`),
    ...(typeof record['durationMs'] === 'number' ? [`${record['durationMs']}ms`] : []),
  ];
  const decision = record['decision'] as JsonObject | undefined;
  if (decision !== undefined) parts.push(`${String(decision['effect'])} by ${String(decision['ruleId'])}`);
  return parts.join(' ');
}

function inert(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A duration for people: 57 s, 12 min, 3.5 h, 20 d. */
export function formatSeconds(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}

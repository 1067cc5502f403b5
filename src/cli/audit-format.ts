// One audit line for a human: time, seq, who, what, outcome, duration. `--json` prints the
// stored line instead (for jq and the like).
// The record holds what clients sent (a method, a tool name, a token's subject), so the line
// is made inert before it reaches a terminal: control characters, bidirectional controls and
// invisible format characters (protocol/hidden-characters.ts) are written as \uXXXX escapes,
// in the line for people and in the `--json` line alike (there as JSON escapes of the same
// value, so jq reads what was stored).
import { escapeHiddenCharacters } from '../protocol/hidden-characters.ts';
import type { JsonObject } from '../protocol/message.ts';

export function formatAuditLine(record: JsonObject): string {
  return escapeHiddenCharacters(describeRecord(record));
}

/** The stored line for `--json`, made inert: the same JSON value, byte for byte except escapes. */
export function formatAuditJson(storedLine: string): string {
  return escapeHiddenCharacters(storedLine);
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


/** A duration for people: 57 s, 12 min, 3.5 h, 20 d. */
export function formatSeconds(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}

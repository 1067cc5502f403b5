// One audit line for a human: time, seq, who, what, outcome, duration. `--json` prints the
// stored line instead (for jq and the like).
import type { JsonObject } from '../jsonrpc/message.ts';

export function formatAuditLine(record: JsonObject): string {
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

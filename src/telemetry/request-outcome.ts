// How one request ended, as spans and metrics label it. The values are the audit record's
// outcomes (src/audit/audit-record.ts `AuditOutcome`), so one word means the same thing in
// the audit trail, on a span and in a Prometheus label; a closed union also keeps the
// `outcome` label's cardinality fixed.

export const REQUEST_OUTCOMES = [
  'ok',
  'tool_error',
  'error',
  'denied',
  'rate_limited',
  'approval_required',
  'cancelled',
] as const;

export type RequestOutcome = (typeof REQUEST_OUTCOMES)[number];

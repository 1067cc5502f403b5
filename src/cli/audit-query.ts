// `gatehouse audit query`: the records of a chain that match principal, tool, outcome and a
// time range [since, until), oldest first. Reads every file of the chain as a stream.
import { parseArgs } from 'node:util';
import { compileAuditFilter, type AuditFilterSpec } from '../audit/audit-filter.ts';
import type { AuditOutcome } from '../audit/audit-record.ts';
import { formatAuditJson, formatAuditLine } from './audit-format.ts';
import { auditUsageError, CHAIN_OPTIONS, chainLocation, readChain } from './audit-options.ts';

const OPTIONS = {
  ...CHAIN_OPTIONS,
  principal: { type: 'string' },
  tool: { type: 'string' },
  outcome: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
} as const;

// Every outcome a request record can have (a Record, so a new one cannot be left out): an
// --outcome outside them would match nothing and look like an empty trail.
const OUTCOMES: Readonly<Record<AuditOutcome, true>> = {
  ok: true, tool_error: true, error: true, denied: true, rate_limited: true, approval_required: true, cancelled: true,
};

export async function auditQueryCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS }));
  } catch (e) {
    return auditUsageError('query', (e as Error).message);
  }
  if (values.outcome !== undefined && !Object.hasOwn(OUTCOMES, values.outcome)) {
    return auditUsageError('query', `--outcome must be one of ${Object.keys(OUTCOMES).join(', ')}; got "${values.outcome}"`);
  }
  const spec: AuditFilterSpec = {
    ...(values.principal === undefined ? {} : { principal: values.principal }),
    ...(values.tool === undefined ? {} : { tool: values.tool }),
    ...(values.outcome === undefined ? {} : { outcome: values.outcome }),
  };
  for (const key of ['since', 'until'] as const) {
    const text = values[key];
    if (text === undefined) continue;
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) return auditUsageError('query', `--${key} must be an ISO 8601 time, got "${text}"`);
    spec[key] = ms;
  }
  const matches = compileAuditFilter(spec);
  const { dir, file } = chainLocation(values);
  try {
    for await (const { text, record } of readChain(dir, file)) {
      if (matches(record)) process.stdout.write(`${values.json === true ? formatAuditJson(text) : formatAuditLine(record)}\n`);
    }
  } catch (e) {
    process.stderr.write(`gatehouse audit query: ${(e as Error).message}\n`);
    return 2;
  }
  return 0;
}

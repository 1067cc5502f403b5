// LoggingLevel of both eras' schemas: the RFC 5424 severities, least severe first
// (RFC 5424 section 6.2.1; MCP 2025-11-25 and 2026-07-28, server/utilities/logging).
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

export type LoggingLevel = (typeof LOG_LEVELS)[number];

const SEVERITY: ReadonlyMap<string, number> = new Map(LOG_LEVELS.map((l, i) => [l, i]));

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && SEVERITY.has(value);
}

/** The level's rank (0 = debug), or undefined for a string that is not a level. */
export function severityOf(level: string): number | undefined {
  return SEVERITY.get(level);
}

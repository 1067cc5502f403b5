// Structured JSON logs to stderr, never stdout: stdout belongs to the protocol when the
// gateway or an upstream runs under stdio (docs/architecture.md house style 9). Callers pass fields,
// never whole headers or configs, so secrets have no way in.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogSink {
  write(line: string): void;
}

export function createLogger(opts: { level?: LogLevel; sink?: LogSink; base?: LogFields } = {}): Logger {
  const min = RANK[opts.level ?? 'info'];
  const sink = opts.sink ?? { write: (line: string) => process.stderr.write(line) };
  const base = opts.base ?? {};
  const emit = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[level] < min) return;
    const rec = { time: new Date().toISOString(), level, msg, ...base, ...fields };
    sink.write(`${JSON.stringify(rec, errorReplacer)}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...opts, base: { ...base, ...fields } }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}

/** A logger that records lines in memory, for tests that assert on what was logged. */
export function createMemoryLogger(): { logger: Logger; lines: LogFields[] } {
  const lines: LogFields[] = [];
  const logger = createLogger({ level: 'debug', sink: { write: (l) => lines.push(JSON.parse(l) as LogFields) } });
  return { logger, lines };
}

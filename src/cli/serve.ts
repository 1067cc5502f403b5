// `gatehouse serve --config FILE [--host H] [--port N]`: load and validate the config
// (a bad one exits 2 with every problem listed), start the gateway, reload the config on
// SIGHUP and when its file changes, drain on SIGTERM/SIGINT, and make sure no stdio child
// outlives the process.
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/config-error.ts';
import { collectConfigFile, loadConfig } from '../config/load-config.ts';
import { createLogger, type LogLevel } from '../telemetry/logger.ts';
import { startGateway } from '../app/start-gateway.ts';

const LISTEN_FAILURES: Readonly<Record<string, string>> = {
  EADDRINUSE: 'another process listens there: stop it, or choose another port with --port or listen.port',
  EACCES: 'ports below 1024 need privileges: choose another port with --port or listen.port',
  EADDRNOTAVAIL: 'no interface of this machine has that address: check --host or listen.host',
};

function hintFor(code: string | undefined): string {
  const hint = LISTEN_FAILURES[code ?? ''];
  return hint === undefined ? '' : `; ${hint}`;
}

// What closing may take after the drain before the process gives up on it.
const FORCE_AFTER_MS = 10_000;

export const SERVE_USAGE = 'usage: gatehouse serve --config FILE [--host HOST] [--port PORT]';

export async function serveCommand(argv: string[]): Promise<number> {
  let values: { config?: string; host?: string; port?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' }, host: { type: 'string' }, port: { type: 'string', short: 'p' } } }));
  } catch (e) {
    process.stderr.write(`gatehouse serve: ${(e as Error).message}\n${SERVE_USAGE}\n`);
    return 2;
  }
  if (!values.config) {
    process.stderr.write(`gatehouse serve: --config is required\n${SERVE_USAGE}\n`);
    return 2;
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`gatehouse serve: --port must be an integer from 0 to 65535, got "${values.port}"\n`);
      return 2;
    }
  }
  const logger = createLogger({ level: (process.env.GATEHOUSE_LOG_LEVEL as LogLevel | undefined) ?? 'info' });
  let config;
  const file = values.config;
  const overrides = { ...(values.host ? { host: values.host } : {}), ...(port !== undefined ? { port } : {}) };
  try {
    config = loadConfig(file, process.env, overrides);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`gatehouse: invalid config\n${e.format()}\n`);
      return 2;
    }
    throw e;
  }
  let gateway;
  try {
    // A reload reads the file as the boot did: same environment, same command-line overrides.
    gateway = await startGateway(config, logger, { reload: { load: () => collectConfigFile(file, process.env, overrides), watch: true } });
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`gatehouse: invalid policy\n${e.format()}\n`);
      return 2;
    }
    // Only the listen socket's own failure (EADDRINUSE, EACCES on a low port) is about the
    // address; the audit directory, policy watch and the like fail before it and say so.
    // startGateway has closed what it opened and started no upstream, so returning exits.
    const error = e as NodeJS.ErrnoException;
    const listening = error.syscall === 'listen';
    process.stderr.write(`gatehouse: ${listening ? `cannot listen on ${config.listen.host}:${config.listen.port}: ${error.message}${hintFor(error.code)}` : `cannot start: ${error.message}`}\n`);
    return 1;
  }
  const running = gateway;
  process.on('exit', () => running.killChildren());
  // The first signal drains (config `shutdown`); a second one stops at once. Either way a
  // stop that hangs (a stalled disk, a child that ignores SIGTERM) is ended by the timer.
  await new Promise<void>((resolve) => {
    let stopping = false;
    // A stop that fails still ends the process: the exit handler kills the children.
    const failed = (e: unknown): void => {
      logger.error('shutdown failed', { error: (e as Error).message });
      resolve();
    };
    const stop = (signal: string): void => {
      const force = setTimeout(() => {
        running.killChildren();
        process.exit(1);
      }, stopping ? FORCE_AFTER_MS : running.currentConfig().shutdown.drainDelayMs + running.currentConfig().shutdown.deadlineMs + FORCE_AFTER_MS);
      force.unref();
      if (stopping) {
        logger.info('stopping at once', { signal });
        void running.close().then(resolve, failed);
        return;
      }
      stopping = true;
      logger.info('shutting down', { signal });
      void running.drain().then(resolve, failed);
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}

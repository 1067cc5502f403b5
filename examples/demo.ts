// `npm start`: the demo. Starts the example weather server (modern era, Streamable HTTP on
// 127.0.0.1:$WEATHER_PORT, 9001 by default) and then Gatehouse with gatehouse.yaml (port
// 8080, or `npm start -- --port N`), which also fronts the reference server-everything over
// stdio. Both ports are checked first: a busy one stops the demo with a message that says
// which and how to pick another, rather than a stack trace and a gateway fronting whatever
// holds the port. Ctrl-C (or SIGTERM) stops both.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
// gatehouse.yaml's listen.port.
const GATEWAY_DEFAULT_PORT = 8080;

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(1);
}

function portFrom(text: string, what: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`${what} must be a port from 1 to 65535, got "${text}"`);
  return port;
}

const WEATHER_PORT = portFrom(process.env.WEATHER_PORT ?? '9001', 'WEATHER_PORT');
// The gateway's own options pass through; only --port matters here, to check it first.
const { values: gatewayArgs } = parseArgs({ args: process.argv.slice(2), options: { port: { type: 'string', short: 'p' } }, strict: false });
const GATEWAY_PORT = typeof gatewayArgs.port === 'string' ? portFrom(gatewayArgs.port, '--port') : GATEWAY_DEFAULT_PORT;

/** Whether 127.0.0.1:port can be listened on now (nothing else holds it). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

if (WEATHER_PORT === GATEWAY_PORT) fail(`the weather server and the gateway cannot share port ${GATEWAY_PORT}: set WEATHER_PORT or --port to another one`);
if (!(await portFree(WEATHER_PORT))) {
  fail(`port ${WEATHER_PORT} (the weather example server) is in use on 127.0.0.1. Stop what holds it, or pick another port: WEATHER_PORT=${WEATHER_PORT + 1} npm start`);
}
if (!(await portFree(GATEWAY_PORT))) {
  fail(`port ${GATEWAY_PORT} (the gateway) is in use on 127.0.0.1. Stop what holds it, or pick another port: npm start -- --port ${GATEWAY_PORT + 1}`);
}

function start(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Resolves once the port accepts connections; rejects when `child` exits first or time runs out. */
async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (exited !== undefined) throw new Error(`the weather example exited (status ${exited}) before it listened on 127.0.0.1:${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the weather example did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

const weather = start(['--import', 'tsx', 'examples/weather-server.ts'], { PORT: String(WEATHER_PORT) });
try {
  await waitForPort(WEATHER_PORT, weather, 15_000);
} catch (e) {
  weather.kill('SIGTERM');
  fail((e as Error).message);
}
const gateway = start(['bin/gatehouse.js', 'serve', '--config', 'gatehouse.yaml', ...process.argv.slice(2)], { WEATHER_PORT: String(WEATHER_PORT) });

const stop = (): void => {
  gateway.kill('SIGTERM');
  weather.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
gateway.on('exit', (code) => {
  weather.kill('SIGTERM');
  process.exitCode = code ?? 0;
});

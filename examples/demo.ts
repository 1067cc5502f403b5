// `npm start`: the demo. Starts the example weather server (modern era, Streamable HTTP on
// 127.0.0.1:9001) and then Gatehouse with gatehouse.yaml, which also fronts the reference
// server-everything over stdio. Ctrl-C (or SIGTERM) stops both.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

const root = new URL('..', import.meta.url).pathname;
const WEATHER_PORT = Number(process.env.WEATHER_PORT ?? 9001);

function start(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
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
await waitForPort(WEATHER_PORT, 15_000);
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

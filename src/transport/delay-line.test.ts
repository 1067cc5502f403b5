// The delay line on Node's real timers: its calls run in order, none before its delay, none
// that was cancelled, and the line goes on after a call adds another or throws.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DelayLine } from './delay-line.ts';

const DELAY_MS = 30;
const run = promisify(execFile);

/** A promise for a call of the line, and when (performance.now()) it ran. */
function waitOn(line: DelayLine, log: string[], name: string): Promise<number> {
  return new Promise((resolve) => {
    line.add(() => {
      log.push(name);
      resolve(performance.now());
    });
  });
}

describe('DelayLine', () => {
  it('runs each call once its delay has passed, in the order they were added', async () => {
    const line = new DelayLine(DELAY_MS);
    const log: string[] = [];
    const started = performance.now();
    const first = waitOn(line, log, 'a');
    const second = waitOn(line, log, 'b');
    const [at] = await Promise.all([first, second]);
    expect(log).toEqual(['a', 'b']);
    // Node's timers may run a millisecond early by this clock; the line allows that much.
    expect(at - started).toBeGreaterThanOrEqual(DELAY_MS - 1.5);
    expect(line.queued).toBe(0);
  });

  it('never runs a cancelled call, and lets it go at its time', async () => {
    const line = new DelayLine(DELAY_MS);
    const log: string[] = [];
    const cancelled = line.add(() => log.push('cancelled'));
    const kept = waitOn(line, log, 'kept');
    DelayLine.cancel(cancelled);
    expect(cancelled.fn).toBeUndefined();
    await kept;
    expect(log).toEqual(['kept']);
    expect(line.queued).toBe(0);
  });

  it('serves calls added later on the one timer, each after its own delay', async () => {
    const line = new DelayLine(DELAY_MS);
    const log: string[] = [];
    const firstAdded = performance.now();
    const first = waitOn(line, log, 'first');
    await new Promise((r) => setTimeout(r, DELAY_MS / 2));
    const laterAdded = performance.now();
    const later = waitOn(line, log, 'later');
    const firstAt = await first;
    // The first ran alone: the later one's time had not come.
    expect(log).toEqual(['first']);
    expect(firstAt - firstAdded).toBeGreaterThanOrEqual(DELAY_MS - 1.5);
    const laterAt = await later;
    expect(laterAt - laterAdded).toBeGreaterThanOrEqual(DELAY_MS - 1.5);
    expect(log).toEqual(['first', 'later']);
  });

  it('runs a call that a call adds, after its own delay', async () => {
    const line = new DelayLine(DELAY_MS);
    const log: string[] = [];
    const nested = new Promise<void>((resolve) => {
      line.add(() => {
        log.push('outer');
        line.add(() => {
          log.push('inner');
          resolve();
        });
      });
    });
    await nested;
    expect(log).toEqual(['outer', 'inner']);
  });

  it('goes on with the calls behind one that throws, which reaches the process as a timer\'s would', async () => {
    // In a process of its own: the throw is the process's uncaught exception, as vitest's own would be.
    const script = [
      `const { DelayLine } = await import(${JSON.stringify(new URL('./delay-line.ts', import.meta.url).href)});`,
      "process.on('uncaughtException', (e) => process.stderr.write('uncaught ' + e.message + '\\n'));",
      `const line = new DelayLine(${DELAY_MS});`,
      "line.add(() => { throw new Error('boom'); });",
      // The line's timer does not hold a process open; this one does, until the last call ran.
      'const alive = setInterval(() => undefined, 1000);',
      "line.add(() => { process.stderr.write('behind ran\\n'); clearInterval(alive); });",
    ].join('\n');
    const { stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000 });
    expect(stderr.split('\n').filter(Boolean)).toEqual(['uncaught boom', 'behind ran']);
  });

  it('keeps a steady stream of cancelled waits to those not yet due', async () => {
    const line = new DelayLine(DELAY_MS);
    for (let i = 0; i < 5000; i++) DelayLine.cancel(line.add(() => undefined));
    expect(line.queued).toBe(5000);
    const log: string[] = [];
    await waitOn(line, log, 'last');
    expect(line.queued).toBe(0);
  });
});

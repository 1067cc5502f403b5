// `gatehouse --version` and `--help` / `-h` on every command and subcommand, run as the real
// command: help asked for is printed to stdout with exit 0 (never "Unknown option '--help'"),
// and words that are not commands still get an error and exit 2.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/help.ts';
import { killStarted, runCliToEnd } from '../harness/cli-process.ts';
import { REPO_ROOT } from '../harness/gateway.ts';

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const PATHS = Object.entries(COMMANDS).flatMap(([command, subs]) => [command, ...subs.map((s) => `${command} ${s}`)]);

afterAll(killStarted);

describe.concurrent('gatehouse --version', () => {
  for (const flag of ['--version', '-V', 'version']) {
    it(`${flag} prints the package version and exits 0`, async () => {
      expect(await runCliToEnd([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    });
  }
});

describe.concurrent('help on every command and subcommand', () => {
  it('the top level answers --help, -h and help with the command list', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await runCliToEnd(args);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      for (const command of Object.keys(COMMANDS)) expect(r.stdout).toContain(`gatehouse ${command}`);
    }
  });

  for (const path of PATHS) {
    it(`gatehouse ${path} --help, -h and help ${path} print its usage on stdout and exit 0`, async () => {
      const words = path.split(' ');
      const runs = await Promise.all([[...words, '--help'], [...words, '-h'], ['help', ...words]].map((args) => runCliToEnd(args)));
      for (const r of runs) {
        expect(r.code).toBe(0);
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(new RegExp(`^usage:\\s+gatehouse ${path}`));
      }
      expect(new Set(runs.map((r) => r.stdout)).size).toBe(1);
    });
  }

  it('--help after options and values still answers with the help and runs nothing', async () => {
    const r = await runCliToEnd(['serve', '--config', 'does-not-exist.yaml', '--port', '1', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: gatehouse serve/);
  });

  it('an unknown command or subcommand is still an error, with or without --help', async () => {
    const unknown = await runCliToEnd(['frob', '--help']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frob"');
    const sub = await runCliToEnd(['policy', 'frob', '-h']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('unknown subcommand "frob"');
    const help = await runCliToEnd(['help', 'frob']);
    expect(help.code).toBe(2);
    expect(help.stderr).toContain('no help for "frob"');
    expect(help.stdout).toBe('');
  });

  it('a -h after -- is an argument, not a request for help', async () => {
    const r = await runCliToEnd(['audit', 'verify', '--', '-h']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('gatehouse audit verify');
  });
});

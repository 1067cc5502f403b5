// The package as a user gets it: `npm pack`, then the tarball installed with --omit=dev into
// an empty directory, and the installed `gatehouse` command (the bin link npm made) serving
// a real modern upstream (the 2.x SDK fixture) and the reference server-everything over
// stdio to real SDK clients. Proves the files list holds everything that runs and that no
// development dependency (tsx, esbuild, TypeScript, the test servers) is needed at run time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { killStarted, runCli, runCliToEnd, waitForHttp } from '../harness/cli-process.ts';
import { EVERYTHING_SERVER, REPO_ROOT } from '../harness/gateway.ts';
import { freePort } from '../harness/free-port.ts';

const work = mkdtempSync(join(tmpdir(), 'gatehouse-ship-'));
const app = join(work, 'app');
const PKG = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
let tarball: string;
let installed: string;
let upstream: ModernUpstream;
// npm finds node through PATH (the bin's `#!/usr/bin/env node`), as a user's shell does.
const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? work };

beforeAll(async () => {
  // The vitest global setup has built dist/; --ignore-scripts keeps prepack from rebuilding
  // it under the feet of the other test files running now.
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  tarball = join(work, (JSON.parse(packed) as { filename: string }[])[0]!.filename);
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'ship-test', private: true }));
  execFileSync('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: app, encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  installed = join(app, 'node_modules', PKG.name);
  upstream = await startModernUpstream({ name: 'ship-upstream' });
}, 240_000);

afterAll(async () => {
  killStarted();
  await upstream?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the compiled gateway and no sources, tests or development files', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    expect(listing).toContain('bin/gatehouse.js');
    expect(listing).toContain('dist/main.js');
    expect(listing).toContain('dist/approvals/console-static/console.html');
    expect(listing).toContain('schema/gatehouse.schema.json');
    expect(listing).toContain('LICENSE');
    const roots = new Set(listing.map((f) => f.split('/')[0]));
    expect([...roots].sort()).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'docs', 'package.json', 'schema']);
    expect(listing.filter((f) => f.endsWith('.ts'))).toEqual([]);
  });

  it('installs with --omit=dev without tsx, esbuild, TypeScript or the test servers', () => {
    const modules = join(app, 'node_modules');
    for (const dev of ['tsx', 'esbuild', 'typescript', 'vitest', '@modelcontextprotocol/server-everything', '@modelcontextprotocol/sdk']) {
      expect(existsSync(join(modules, dev)), dev).toBe(false);
    }
    expect(readdirSync(join(modules, '.bin'))).toContain('gatehouse');
  });
});

describe('the installed gatehouse command', () => {
  const gatehouse = (): string => join(app, 'node_modules/.bin/gatehouse');

  it('prints its version and help', async () => {
    const version = await runCliToEnd(['--version'], { command: gatehouse(), cwd: app, env });
    expect(version).toEqual({ code: 0, stdout: `${PKG.version}\n`, stderr: '' });
    const help = await runCliToEnd(['serve', '--help'], { command: gatehouse(), cwd: app, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: gatehouse serve/);
  });

  it('serves an SDK upstream over HTTP and server-everything over stdio to both SDK clients', async () => {
    const port = await freePort();
    const config = join(app, 'gatehouse.yaml');
    writeFileSync(config, [
      'listen: { host: 127.0.0.1, port: 0 }',
      'upstreams:',
      `  - name: modern`,
      `    url: ${upstream.url}`,
      '  - name: everything',
      `    command: ${process.execPath}`,
      `    args: ["${EVERYTHING_SERVER}", stdio]`,
      '',
    ].join('\n'));
    const run = runCli(['serve', '--config', config, '--port', String(port)], { command: gatehouse(), cwd: app, env });
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(run, `${base}/readyz`);

    const modern = await connectModernClient(`${base}/mcp`);
    const echoed = await modern.callTool({ name: 'modern__echo', arguments: { message: 'from the tarball' } });
    expect(echoed.structuredContent).toEqual({ message: 'from the tarball' });
    await modern.close();

    await expect.poll(async () => ((await (await fetch(`${base}/readyz`)).json()) as { upstreams: { state: string }[] }).upstreams.map((u) => u.state), { timeout: 20_000 }).toEqual(['up', 'up']);
    const legacy = await connectLegacyClient(`${base}/mcp`);
    const sum = await legacy.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 3 } });
    expect(JSON.stringify(sum.content)).toContain('5');
    await legacy.close();

    // The console's static files come from dist/ of the installed package.
    const page = await fetch(`${base}/approvals`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');

    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toBe('');
    expect(existsSync(join(installed, 'dist/main.js'))).toBe(true);
  });
});

// `npm run build`: compiles src/ to dist/ with tsc (tsconfig.build.json) and copies the files
// the code reads at run time beside the compiled modules (every non-TypeScript file under
// src/, such as the approvals console's page), so dist/ runs on its own with plain node.
// `--if-stale` builds only when dist/ is missing or older than a source: `npm start`,
// `npm run bench` and the test suite use it so a fresh clone or an edited src/ just works.
// Plain JavaScript on purpose: it must run before anything is compiled, without tsx.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
// Written last: its time is when dist/ was complete.
const STAMP = '.build-stamp';
// What the compiled output depends on besides src/.
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build.js'];

/** Newest modification time (ms) of every file and folder under `dir`: a folder's time
 * changes when an entry is added or removed, so deleting a source also counts. */
function newestUnder(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export function isStale() {
  const stamp = join(DIST, STAMP);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const inputs = Math.max(newestUnder(SRC), ...INPUTS.map((f) => statSync(join(ROOT, f)).mtimeMs));
  return inputs > built;
}

/** Compiles into a temporary folder and swaps it in, so dist/ is never half-written and a
 * failed compile (type errors: noEmitOnError) leaves the previous build in place. */
export function build() {
  const out = join(ROOT, `dist.tmp-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    rmSync(out, { recursive: true, force: true });
    return false;
  }
  for (const entry of readdirSync(SRC, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
    const from = join(entry.parentPath, entry.name);
    const to = join(out, relative(SRC, from));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(from, to);
  }
  writeFileSync(join(out, STAMP), `${new Date().toISOString()}\n`);
  rmSync(DIST, { recursive: true, force: true });
  renameSync(out, DIST);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && !isStale()) process.exit(0);
  if (ifStale) process.stderr.write('gatehouse: building dist/ (npm run build)\n');
  process.exit(build() ? 0 : 1);
}

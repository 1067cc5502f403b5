// Vitest global setup: the tests that spawn `bin/gatehouse.js` run the compiled dist/, so
// build it first when it is missing or older than src/ (a no-op when it is current). A
// failed build stops the run here, with tsc's messages, instead of in every CLI test.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BUILD = fileURLToPath(new URL('../../scripts/build.js', import.meta.url));

export default function buildDist(): void {
  const r = spawnSync(process.execPath, [BUILD, '--if-stale'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`building dist/ failed (exit ${r.status ?? r.signal}): run \`npm run build\` to see why`);
}

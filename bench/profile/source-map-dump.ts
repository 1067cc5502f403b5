// Preloaded (`--import`) into a gateway run under `--cpu-prof`: at exit it writes the source
// maps tsx produced for every src/*.ts file to $BENCH_SOURCE_MAP_DIR, so cpu-profile-summary
// can turn profile positions (in tsx's one-line output) back into src file:line.
import { readdirSync, writeFileSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const outDir = process.env.BENCH_SOURCE_MAP_DIR;

if (outDir) {
  process.on('exit', () => {
    const maps: Record<string, unknown> = {};
    for (const entry of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith('.ts')) continue;
      const file = join(SRC, entry);
      const url = pathToFileURL(file).href;
      const map = findSourceMap(url) ?? findSourceMap(file);
      if (map) maps[url] = map.payload;
    }
    writeFileSync(join(outDir, `source-maps-${process.pid}.json`), JSON.stringify(maps));
  });
}

#!/usr/bin/env node
// Entry point for the `gatehouse` command: runs the compiled dist/ with plain node (no
// TypeScript loader at run time). In a checkout, `npm run build` makes dist/; `npm start`
// and `npm test` build it when it is missing or older than src/.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('gatehouse: dist/ is missing: run `npm run build` in the checkout first\n');
  process.exit(1);
}
await import(main.href);

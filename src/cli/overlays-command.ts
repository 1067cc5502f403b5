// `gatehouse overlays confirm --config FILE [--check]`: records in the config file, for every
// overlay (the gateway-wide ones and each virtual server's own), the hash of the upstream definition it applies to now (overlays/overlay-hash.ts),
// so that an overlay held back as unconfirmed or quarantined applies again: `gatehouse serve`
// reloads the file when it changes (README, Reloading the configuration).
// The file is edited in place through the YAML document, so comments, order and ${VAR}
// references stay as written; only `sha256` values change. An overlay that cannot apply (its
// item is missing, it does not fit the definition) is reported as a config error with file,
// line and path, and then nothing is written. --check writes nothing and exits 1 when some
// hash would change (for CI). Exit 0, 1 (--check: unconfirmed), 2 (bad config, an upstream
// down, an overlay that cannot apply).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseDocument } from 'yaml';
import { fromPointer, formatIssue } from '../config/config-error.ts';
import { NO_OVERLAYS } from '../overlays/overlay-config.ts';
import { checkWith } from '../overlays/overlay-states.ts';
import { reviewOverlays, type OverlayReview } from '../overlays/overlay-review.ts';
import { SchemaValidator } from '../validation/schema-validator.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { OverlaysConfig } from '../overlays/overlay-config.ts';
import { CLI_AUTH_CONTEXT, serverCatalog, withUpstreams } from './upstream-session.ts';

export const OVERLAYS_USAGE = `usage:
  gatehouse overlays confirm --config GATEWAY.yaml [--check]`;

export async function overlaysCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'confirm') {
    process.stderr.write(`gatehouse overlays: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}\n${OVERLAYS_USAGE}\n`);
    return 2;
  }
  let values: { config?: string; check?: boolean };
  try {
    ({ values } = parseArgs({ args: rest, options: { config: { type: 'string', short: 'c' }, check: { type: 'boolean' } } }));
  } catch (e) {
    process.stderr.write(`gatehouse overlays confirm: ${(e as Error).message}\n${OVERLAYS_USAGE}\n`);
    return 2;
  }
  const file = values.config;
  if (file === undefined) {
    process.stderr.write(`gatehouse overlays confirm: --config is required\n${OVERLAYS_USAGE}\n`);
    return 2;
  }
  return withUpstreams('overlays confirm', file, async ({ config, catalog }) => {
    const raw = catalog(NO_OVERLAYS);
    const check = checkWith(new SchemaValidator());
    // A server's own overlays are written for the items as that server names and selects them.
    const scopes: { catalog: Catalog; overlays: OverlaysConfig }[] = [
      { catalog: raw, overlays: config.overlays },
      ...config.servers.filter((s) => s.overlays.tools.length + s.overlays.prompts.length > 0).map((s) => ({ catalog: serverCatalog(raw, config, { ...s, overlays: NO_OVERLAYS }), overlays: s.overlays })),
    ];
    const reviews: OverlayReview[] = [];
    for (const scope of scopes) {
      const views = await Promise.all([scope.catalog.view('tools', CLI_AUTH_CONTEXT), scope.catalog.view('prompts', CLI_AUTH_CONTEXT)]);
      for (const v of views) for (const m of v.missing) process.stderr.write(`gatehouse overlays confirm: upstream "${m.upstream}" did not list its ${v.kind}: ${m.reason}\n`);
      if (views.some((v) => v.missing.length > 0)) return 2;
      reviews.push(...reviewOverlays(views[0], scope.overlays.tools, check), ...reviewOverlays(views[1], scope.overlays.prompts, check));
    }
    const problems = reviews.filter((r) => r.problem !== undefined);
    if (problems.length > 0) {
      process.stderr.write(`gatehouse: invalid overlays (nothing written)\n${problems.map((r) => formatIssue({ file, path: r.overlay.source.path, ...(r.overlay.source.line === undefined ? {} : { line: r.overlay.source.line }), message: r.problem! })).join('\n')}\n`);
      return 2;
    }
    const changed = reviews.filter((r) => r.current !== r.overlay.sha256);
    for (const r of reviews) process.stdout.write(`${line(r)}\n`);
    if (values.check) return changed.length > 0 ? 1 : 0;
    if (changed.length === 0) return 0;
    const doc = parseDocument(readFileSync(file, 'utf8'));
    for (const r of changed) doc.setIn([...fromPointer(r.overlay.source.path).map((s) => (/^\d+$/.test(s) ? Number(s) : s)), 'sha256'], r.current);
    // lineWidth 0: long descriptions stay on their lines, so the diff is the hashes alone.
    writeFileSync(file, doc.toString({ lineWidth: 0 }));
    process.stdout.write(`wrote ${changed.length} hash${changed.length === 1 ? '' : 'es'} to ${file}; a gateway serving this file applies them when it reloads it (at once: it watches the file)\n`);
    return 0;
  });
}

function line(r: OverlayReview): string {
  const o = r.overlay;
  const what = `${o.kind === 'tools' ? 'tool' : 'prompt'} ${o.upstream === undefined ? o.target : `${o.upstream}/${o.target}`}${o.name ? ` -> ${o.name}` : ''}`;
  const state = r.current === o.sha256 ? 'confirmed' : o.sha256 === undefined ? 'new      ' : 'changed  ';
  return `${state}  ${o.source.path}  ${what}  sha256 ${r.current}`;
}

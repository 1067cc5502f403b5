// Reading and comparing the conformance suite's results (pure but for the reading). Each
// scenario run leaves `<out>/[server-]<scenario>-<timestamp>/checks.json`; a check id may
// occur several times in a scenario and its occurrences collapse to the most severe one, as
// the suite's own baselines do. INFO entries are mostly the suite's wire log; the few INFO
// checks say "not applicable" (JSON where SSE is optional), which is as good as a pass.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Status = 'SUCCESS' | 'INFO' | 'WARNING' | 'FAILURE' | 'SKIPPED' | 'MISSING';

/** `scenario:check-id` -> status. */
export type Checks = Map<string, Status>;

/** How bad a status is: a check is worse through Gatehouse when this is higher. A check that
 * passed directly but did not run through Gatehouse (MISSING) counts as failed. */
const SEVERITY: Record<Status, number> = { INFO: -1, SUCCESS: 0, SKIPPED: 1, WARNING: 2, FAILURE: 3, MISSING: 3 };

const DIR_NAME = /^(?:server-)?(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/;

export function readChecks(outDir: string): Checks {
  const checks: Checks = new Map();
  let dirs: string[] = [];
  try {
    dirs = readdirSync(outDir);
  } catch {
    return checks;
  }
  for (const dir of dirs) {
    const scenario = DIR_NAME.exec(dir)?.[1];
    if (!scenario) continue;
    let list: { id?: string; status?: string }[];
    try {
      list = JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8'));
    } catch {
      continue;
    }
    for (const c of list) {
      if (typeof c.id !== 'string' || !(c.status! in SEVERITY)) continue;
      const key = `${scenario}:${c.id}`;
      const status = c.status as Status;
      const before = checks.get(key);
      if (before === undefined || SEVERITY[status] > SEVERITY[before]) checks.set(key, status);
    }
  }
  return checks;
}

export interface Tally {
  pass: number;
  fail: number;
  warn: number;
  skip: number;
}

export function tally(checks: Checks): Tally {
  const t: Tally = { pass: 0, fail: 0, warn: 0, skip: 0 };
  for (const s of checks.values()) {
    if (s === 'SUCCESS') t.pass++;
    else if (s === 'FAILURE' || s === 'MISSING') t.fail++;
    else if (s === 'WARNING') t.warn++;
    else if (s === 'SKIPPED') t.skip++;
  }
  return t;
}

export interface Regression {
  check: string;
  direct: Status;
  through: Status;
}

/** Every check whose status through Gatehouse is worse than directly. */
export function regressions(direct: Checks, through: Checks): Regression[] {
  const out: Regression[] = [];
  for (const [check, d] of direct) {
    if (d === 'INFO') continue;
    const t = through.get(check);
    // A check missing through Gatehouse is lost coverage when it passed directly; one that
    // only warned or failed directly (a "no session id" warning, say) may rightly vanish.
    if (t === undefined) {
      if (d === 'SUCCESS') out.push({ check, direct: d, through: 'MISSING' });
    } else if (Math.max(SEVERITY[t], 0) > SEVERITY[d]) out.push({ check, direct: d, through: t });
  }
  return out.sort((a, b) => a.check.localeCompare(b.check));
}

export function formatTally(t: Tally): string {
  return `${t.pass} pass / ${t.fail} fail${t.warn ? ` / ${t.warn} warn` : ''}${t.skip ? ` / ${t.skip} skip` : ''}`;
}

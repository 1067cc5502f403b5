// The suite's client mode, twice per scenario: the SDK client driving the scenario server
// directly, then Gatehouse in front of it (client-driver.ts), so a check is worse through
// Gatehouse exactly when Gatehouse as a client does worse than the SDK client it fronts.
import { runSuite } from './suite-cli.ts';
import { regressions, type Checks, type Regression } from './suite-results.ts';
import { LEGACY_SCENARIOS } from './client-driver-scenarios.ts';

export interface ClientRun {
  label: string;
  scenarios: readonly string[];
}

export const CLIENT_RUNS: readonly ClientRun[] = [
  {
    label: '0.2.0-alpha.12 client mode, Gatehouse as the client',
    scenarios: ['initialize', 'sse-retry', 'elicitation-sep1034-client-defaults', 'request-metadata', 'http-standard-headers', 'http-custom-headers', 'http-invalid-tool-headers', 'json-schema-ref-no-deref'],
  },
];

const DRIVER = new URL('./client-driver.ts', import.meta.url).pathname;
const SCENARIO_TIMEOUT_MS = 30_000;

async function runScenarios(run: ClientRun, mode: 'direct' | 'gatehouse'): Promise<Checks> {
  const all: Checks = new Map();
  for (const scenario of run.scenarios) {
    const version = LEGACY_SCENARIOS.has(scenario) ? '2025-11-25' : '2026-07-28';
    const command = `${process.execPath} --import tsx ${DRIVER} ${mode}`;
    const result = await runSuite('0.2.0-alpha.12', ['client', '--command', command, '--scenario', scenario, '--spec-version', version, '--timeout', String(SCENARIO_TIMEOUT_MS - 5000)], SCENARIO_TIMEOUT_MS);
    for (const [k, v] of result.checks) all.set(k, v);
  }
  return all;
}

export async function runClientMode(run: ClientRun): Promise<{ label: string; direct: Checks; through: Checks; worse: Regression[] }> {
  const direct = await runScenarios(run, 'direct');
  const through = await runScenarios(run, 'gatehouse');
  return { label: run.label, direct, through, worse: regressions(direct, through) };
}

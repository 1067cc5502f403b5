// `gatehouse policy pin --config FILE [--tool GLOB ...] [--include-annotations]`: prints the `pins:` YAML for the
// tools the gateway would serve right now, to review and save as a policy file
// (`> policies/90-pins.yaml`). The upstreams are started from the gateway config and the
// tools list is merged exactly as the gateway merges it (same names, same definitions), so a
// pin written here matches what the running gateway hashes. Every upstream must answer: a
// pins file silently missing one upstream's tools would leave them unpinned.
// --include-annotations writes version 2 pins, whose hashes also cover title and annotations
// (tool-definition-hash.ts), so that a flipped destructiveHint quarantines the tool. Exit 0, or 2
// with the problem on stderr (bad config, an upstream down, a --tool that matches nothing).
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { Catalog } from '../catalog/catalog.ts';
import { ConfigError } from '../config/config-error.ts';
import { loadConfig } from '../config/load-config.ts';
import type { GatewayConfig } from '../config/types.ts';
import { createLogger, type LogLevel } from '../telemetry/logger.ts';
import { compileGlobSet } from '../policy/glob.ts';
import { formatPinsYaml, type PinnableTool } from '../policy/pins-yaml.ts';
import { createUpstreams } from '../app/upstream-clients.ts';
import { usageError } from './policy-options.ts';

/** Whose lists the catalog fetches: nobody's in particular (upstreams never see the client). */
const PIN_AUTH_CONTEXT = 'anonymous';

export async function policyPinCommand(argv: string[]): Promise<number> {
  let values: { config?: string; tool?: string[]; 'include-annotations'?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { config: { type: 'string', short: 'c' }, tool: { type: 'string', short: 't', multiple: true }, 'include-annotations': { type: 'boolean' } },
    }));
  } catch (e) {
    return usageError('pin', (e as Error).message);
  }
  if (!values.config) return usageError('pin', '--config is required');
  let config: GatewayConfig;
  try {
    config = loadConfig(values.config, process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`gatehouse: invalid config\n${e.format()}\n`);
    return 2;
  }
  // Only warnings and errors by default: this is a command whose output is its stdout.
  const logger = createLogger({ level: (process.env.GATEHOUSE_LOG_LEVEL as LogLevel | undefined) ?? 'warn' });
  const upstreams = createUpstreams(config, logger);
  try {
    await Promise.all(upstreams.map((u) => u.start()));
    const down = upstreams.filter((u) => u.status().state !== 'up');
    if (down.length > 0) {
      for (const u of down) process.stderr.write(`gatehouse policy pin: upstream "${u.name}" is not reachable: ${u.status().lastError ?? 'it did not start'}\n`);
      return 2;
    }
    const view = await new Catalog(config, upstreams, logger, randomBytes(32)).view('tools', PIN_AUTH_CONTEXT);
    if (view.missing.length > 0) {
      for (const m of view.missing) process.stderr.write(`gatehouse policy pin: upstream "${m.upstream}" did not list its tools: ${m.reason}\n`);
      return 2;
    }
    let tools = view.items as unknown as PinnableTool[];
    if (values.tool) {
      const globs = compileGlobSet(values.tool);
      tools = tools.filter((t) => globs.matches(t.name));
      if (tools.length === 0) {
        process.stderr.write(`gatehouse policy pin: no tool matches ${values.tool.map((g) => JSON.stringify(g)).join(', ')}; the tools are: ${view.items.map((t) => t.name).join(', ')}\n`);
        return 2;
      }
    }
    const header = [
      `Written by \`gatehouse policy pin\` from the upstreams of ${basename(values.config)}: ${upstreams.map((u) => u.name).join(', ')}.`,
      'A changed hash means a changed tool definition: review the tool before committing the new pin.',
    ].join('\n');
    process.stdout.write(formatPinsYaml(tools, { header, version: values['include-annotations'] === true ? 2 : 1 }));
    return 0;
  } finally {
    await Promise.all(upstreams.map((u) => u.close()));
  }
}

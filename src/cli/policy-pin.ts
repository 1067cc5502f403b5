// `gatehouse policy pin --config FILE [--tool GLOB ...] [--include-annotations]`: prints the `pins:` YAML for the
// tools the gateway would serve right now, to review and save as a policy file
// (`> policies/90-pins.yaml`). The upstreams are started from the gateway config and the
// tools list is merged exactly as the gateway merges it (same names, same definitions), so a
// pin written here matches what the running gateway hashes. Every upstream must answer: a
// pins file silently missing one upstream's tools would leave them unpinned.
// --include-annotations writes version 2 pins, whose hashes also cover title and annotations
// (tool-definition-hash.ts), so that a flipped destructiveHint quarantines the tool. Exit 0, or 2
// with the problem on stderr (bad config, an upstream down, a --tool that matches nothing).
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { compileGlobSet } from '../policy/glob.ts';
import { formatPinsYaml, type PinnableTool } from '../policy/pins-yaml.ts';
import { usageError } from './policy-options.ts';
import { CLI_AUTH_CONTEXT, withUpstreams } from './upstream-session.ts';

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
  const file = values.config;
  return withUpstreams('policy pin', file, async (session) => {
    const view = await session.catalog(session.config.overlays).view('tools', CLI_AUTH_CONTEXT);
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
      `Written by \`gatehouse policy pin\` from the upstreams of ${basename(file)}: ${session.config.upstreams.map((u) => u.name).join(', ')}.`,
      'A changed hash means a changed tool definition: review the tool before committing the new pin.',
    ].join('\n');
    process.stdout.write(formatPinsYaml(tools, { header, version: values['include-annotations'] === true ? 2 : 1 }));
    return 0;
  });
}

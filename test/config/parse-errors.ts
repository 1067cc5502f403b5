// What parseConfig makes of a config text, for the config tests: the config, or the
// ConfigError it throws read as its issues or as the text an operator sees.
import { ConfigError, type ConfigIssue } from '../../src/config/config-error.ts';
import { parseConfig } from '../../src/config/load-config.ts';

/** Where the parsed text claims to come from (errors name it). */
export const FILE = '/etc/gatehouse/gatehouse.yaml';
/** A valid 32-byte session secret, hex. */
export const HEX_SECRET = 'ab'.repeat(32);

export const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfig(text, FILE, env);

export function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

export const issuesOf = (run: () => unknown): ConfigIssue[] => [...errorOf(run).issues];
export const formatOf = (run: () => unknown): string => errorOf(run).format();

/** The lines an operator sees for a config text that does not parse, the text read from `file`. */
export function errorLinesOf(text: string, file: string, env: NodeJS.ProcessEnv = {}, overrides?: Parameters<typeof parseConfig>[3]): string[] {
  return formatOf(() => parseConfig(text, file, env, overrides)).split('\n');
}

// `gatehouse --version`: the package's version, the one Gatehouse also gives as its
// Implementation version (protocol/implementation.ts reads it from package.json).
import { GATEWAY_VERSION } from '../protocol/implementation.ts';

/** The version on stdout. */
export function printVersion(): number {
  process.stdout.write(`${GATEWAY_VERSION}\n`);
  return 0;
}

// What the commands that read the upstreams' lists share (`overlays confirm`, `catalog show`, `policy pin`):
// load the gateway config, start its upstreams, insist that every one is up (a review that
// silently misses one upstream's tools would confirm or show a part of the truth), hand a
// catalog over, and close the upstreams whatever happens. Problems go to stderr; exit code 2.
import { randomBytes } from 'node:crypto';
import { Catalog } from '../catalog/catalog.ts';
import { ConfigError } from '../config/config-error.ts';
import { loadConfig } from '../config/load-config.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { OverlaysConfig } from '../overlays/overlay-config.ts';
import { createLogger, type LogLevel, type Logger } from '../telemetry/logger.ts';
import { createUpstreams } from '../app/upstream-clients.ts';
import { serverScope } from '../servers/server-view.ts';
import type { ServerConfig } from '../servers/servers-config.ts';

/** Whose lists the catalog fetches: nobody's in particular (upstreams never see the client). */
export const CLI_AUTH_CONTEXT = 'anonymous';

export interface UpstreamSession {
  config: GatewayConfig;
  logger: Logger;
  /** A catalog of every upstream, with these overlays (none: the upstreams' own definitions). */
  catalog(overlays: OverlaysConfig): Catalog;
}

/** A virtual server's catalog as the gateway builds it (app/server-endpoints.ts): its upstreams,
 * naming, selection and own overlays over the lists of `base`, whose overlays are the gateway-wide ones. */
export function serverCatalog(base: Catalog, config: GatewayConfig, server: ServerConfig): Catalog {
  const prefixOf = (u: string): string => config.upstreams.find((x) => x.name === u)?.prefix ?? u;
  const scope = serverScope(server, { separator: config.separator, maxNameLength: config.maxNameLength, prefixOf });
  return base.forServer(server.upstreams.map((n) => base.upstream(n)!), scope);
}

export async function withUpstreams(command: string, file: string, run: (s: UpstreamSession) => Promise<number>): Promise<number> {
  let config: GatewayConfig;
  try {
    config = loadConfig(file, process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`gatehouse: invalid config\n${e.format()}\n`);
    return 2;
  }
  // Only warnings and errors by default: these are commands whose output is their stdout.
  const logger = createLogger({ level: (process.env.GATEHOUSE_LOG_LEVEL as LogLevel | undefined) ?? 'warn' });
  const upstreams = createUpstreams(config, logger);
  try {
    await Promise.all(upstreams.map((u) => u.start()));
    const down = upstreams.filter((u) => u.status().state !== 'up');
    for (const u of down) process.stderr.write(`gatehouse ${command}: upstream "${u.name}" is not reachable: ${u.status().lastError ?? 'it did not start'}\n`);
    if (down.length > 0) return 2;
    const secret = randomBytes(32);
    return await run({ config, logger, catalog: (overlays) => new Catalog({ ...config, overlays }, upstreams, logger, secret) });
  } finally {
    await Promise.all(upstreams.map((u) => u.close()));
  }
}

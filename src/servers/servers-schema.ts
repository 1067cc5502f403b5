// JSON Schema of the `servers:` section: virtual servers, each a complete MCP endpoint of its
// own over a selection of the gateway's upstreams (README, Virtual servers and overlays).
// Shape only: unknown upstreams, clashing paths and duplicate names are judged on the
// normalized config (servers-config.ts), where the defaults are known.
import { OVERLAYS_CONFIG_SCHEMA, type RawOverlaysConfig } from '../overlays/overlay-config.ts';

const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]*$';

function globs(description: string): Record<string, unknown> {
  return {
    description: `${description} Globs (\`*\` any run of characters, \`?\` one), matched against the name the server exposes and against the upstream's own name (uri for resources).`,
    type: 'array',
    minItems: 1,
    items: { type: 'string', minLength: 1 },
    errorMessage: 'expected a non-empty list of globs',
  };
}

function selection(what: string): Record<string, unknown> {
  return {
    description: `Which ${what} the server offers. Default: all of its upstreams' ${what}.`,
    type: 'object',
    additionalProperties: false,
    properties: {
      include: globs(`Only ${what} matching one of these. Default ["*"].`),
      exclude: globs(`${what} matching one of these are left out, even when included.`),
    },
  };
}

export const SERVERS_CONFIG_SCHEMA = {
  description: 'Virtual servers: more MCP endpoints besides the default one (listen.path), each with its own catalog, sessions and policy scope.',
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: {
        description: 'Unique; audit records, metrics and policy rules (`when.server`) name the server by it.',
        type: 'string',
        pattern: NAME_PATTERN,
        maxLength: 64,
        errorMessage: 'expected a name of at most 64 letters, digits, "_" or "-", starting with a letter or digit',
      },
      path: {
        description: 'URL path of the server\'s endpoint. Default <listen.path>/<name>, e.g. /mcp/team-a.',
        type: 'string',
        pattern: '^/[^?#\\s]*$',
        errorMessage: 'expected a path starting with "/" (no query, fragment or spaces)',
      },
      host: {
        description: 'Serve this server only to requests whose Host header names this host (port ignored). Default: any host.',
        type: 'string',
        pattern: '^[A-Za-z0-9.-]+$',
        errorMessage: 'expected a host name such as "team-a.example.com" (no port, no scheme)',
      },
      upstreams: {
        description: 'The upstreams (by name) the server draws from, in this order. Default: every upstream.',
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', minLength: 1 },
      },
      tools: selection('tools'),
      prompts: selection('prompts'),
      resources: selection('resources'),
      resourceTemplates: selection('resource templates'),
      instructions: { description: 'The server\'s own instructions for clients (initialize, server/discover). Default: its upstreams\' instructions.', type: 'string' },
      prefix: {
        description: '`upstream` (default): names as on the default endpoint (`<prefix><separator><name>`); `none`: the upstream\'s own names (a server with one upstream only).',
        enum: ['upstream', 'none'],
      },
      overlays: {
        ...OVERLAYS_CONFIG_SCHEMA,
        description: "This server's own tool and prompt overlays, shaped like the top-level `overlays`. An item named here gets this overlay instead of the gateway-wide one on this server; names without `upstream` are the names this server exposes (README, Virtual servers and overlays).",
      },
    },
  },
} as const;

export interface RawSelection {
  include?: string[];
  exclude?: string[];
}

export interface RawServer {
  name: string;
  path?: string;
  host?: string;
  upstreams?: string[];
  tools?: RawSelection;
  prompts?: RawSelection;
  resources?: RawSelection;
  resourceTemplates?: RawSelection;
  instructions?: string;
  prefix?: 'upstream' | 'none';
  overlays?: RawOverlaysConfig;
}

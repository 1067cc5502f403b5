// The `toolSearch:` key of the gateway config: schema fragment, raw type, the frozen settings
// and their defaults. Gateway-wide today; the settings are one self-contained value so that a
// later per-virtual-server block can carry its own copy and the tool-search service only ever
// asks "which settings apply to this call" (tool-search.ts).

/** Most results one search returns, whatever the caller asks for. */
export const MAX_SEARCH_LIMIT = 50;
/** Most names one describe call accepts. */
export const MAX_DESCRIBE_NAMES = 20;

export interface ToolSearchConfig {
  /** tools/list answers with the gateway's search tools instead of the catalog. */
  enabled: boolean;
  /** Globs of client names (clientInfo.name) that still get the whole catalog from tools/list. */
  fullListFor: readonly string[];
  /** Results of a search that does not say how many it wants. */
  defaultLimit: number;
}

export interface RawToolSearchConfig {
  enabled?: boolean;
  fullListFor?: string[];
  defaultLimit?: number;
}

export const TOOL_SEARCH_DEFAULTS = { enabled: false, defaultLimit: 8 } as const;

export const TOOL_SEARCH_CONFIG_SCHEMA = {
  description:
    'Tool search for large catalogs: tools/list returns three gateway tools (search, describe, call) instead of every tool, so a client does not put the whole catalog into its model\'s context. See README, Context budget.',
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { description: 'Answer tools/list with the search tools. Default false.', type: 'boolean', default: false },
    fullListFor: {
      description:
        'Client names (clientInfo.name, `*` and `?` wildcards) that still get the full catalog from tools/list. Any client may also ask for it per request with `_meta: {"io.gatehouse/fullToolList": true}`. Default [].',
      type: 'array',
      default: [],
      items: { description: 'A client name or glob, e.g. "claude-code" or "inspector-*".', type: 'string', minLength: 1 },
    },
    defaultLimit: {
      description: `Results of a search that does not ask for a number (at most ${MAX_SEARCH_LIMIT}). Default ${TOOL_SEARCH_DEFAULTS.defaultLimit}.`,
      type: 'integer',
      minimum: 1,
      maximum: MAX_SEARCH_LIMIT,
      default: TOOL_SEARCH_DEFAULTS.defaultLimit,
    },
  },
} as const;

export function normalizeToolSearchConfig(raw: RawToolSearchConfig | undefined): ToolSearchConfig {
  return {
    enabled: raw?.enabled ?? TOOL_SEARCH_DEFAULTS.enabled,
    fullListFor: raw?.fullListFor ?? [],
    defaultLimit: raw?.defaultLimit ?? TOOL_SEARCH_DEFAULTS.defaultLimit,
  };
}

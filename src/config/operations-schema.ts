// The config sections about running the process rather than serving requests: how SIGTERM
// stops it (`shutdown`), what GET /metrics adds (`metrics`), where /metrics and /readyz are
// served (`admin`) and which Host names the listeners answer (`allowedHosts`). Schema
// fragments mounted by config-schema.ts; their defaults are applied in normalize-config.ts.
import { defaultedDurationSchema } from './duration.ts';

export const SHUTDOWN_CONFIG_SCHEMA = {
  description:
    'How SIGTERM (and SIGINT) stop the gateway: /readyz answers 503 at once, the listener keeps serving for drainDelay (so load balancers take this replica out), then takes no new connections and ends listen streams, and requests in flight get until deadline to finish.',
  type: 'object',
  additionalProperties: false,
  properties: {
    drainDelay: defaultedDurationSchema('How long the gateway keeps serving after the signal, with /readyz at 503.', '0s', '5s'),
    deadline: defaultedDurationSchema('How long requests in flight may then take to finish before their connections are closed.', '10s', '10s'),
  },
} as const;

export const METRICS_CONFIG_SCHEMA = {
  description: "What GET /metrics serves besides the gateway's own metrics.",
  type: 'object',
  additionalProperties: false,
  properties: {
    processMetrics: {
      description: 'Also the Node.js process metrics (process_*, nodejs_*: CPU, memory, heap, event-loop lag, GC, handles). Default false.',
      default: false,
      type: 'boolean',
    },
  },
} as const;

export const ALLOWED_HOSTS_SCHEMA = {
  description: 'Host header values (a name, or name:port) the gateway answers besides loopback names; "*" allows any. Off /mcp (readiness, metrics, the approvals console) a Host not listed is refused with 403 when the listener is loopback or this list is set; on /mcp only when this list is set. The DNS-rebinding defence for requests a browser sends without Origin. Default [].',
  default: [],
  type: 'array',
  uniqueItems: true,
  items: {
    description: 'A host such as gatehouse.example.com or gatehouse.example.com:8443, or "*".',
    type: 'string',
    pattern: '^(\\*|[A-Za-z0-9.-]+(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?)$',
    errorMessage: 'expected a host like "gatehouse.example.com" or "gatehouse.example.com:8443" (no scheme, no path) or "*"',
  },
} as const;

/** `host` and `port` of a listener (the MCP one, `listen`, and the admin one), port defaulting to `defaultPort`. */
export function listenerAddressProperties<P extends number>(defaultPort: P) {
  return {
    host: { description: 'Interface to bind. Default 127.0.0.1.', default: '127.0.0.1', type: 'string', minLength: 1 },
    port: { description: `TCP port; 0 picks a free one. Default ${defaultPort}.`, default: defaultPort, type: 'integer', minimum: 0, maximum: 65535 },
  } as const;
}

export const ADMIN_LISTENER_SCHEMA = {
  description: 'A separate listener for /metrics and /readyz (and /healthz): when set, those are served only here, not on the MCP port.',
  type: 'object',
  additionalProperties: false,
  properties: listenerAddressProperties(9090),
} as const;

// The config sections about running the process rather than serving requests: how SIGTERM
// stops it (`shutdown`) and what GET /metrics adds (`metrics`). Schema fragments mounted by
// config-schema.ts; their defaults are applied in normalize-config.ts.
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

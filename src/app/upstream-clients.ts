// The client for one configured upstream, by its transport: a child process over stdio, one
// HTTP upstream (one session for all clients, or one per client session), or a routed one
// that picks an HTTP target per request. Used by the gateway
// and by the commands that talk to upstreams directly (policy pin, catalog show).
import type { GatewayConfig, UpstreamConfig } from '../config/types.ts';
import type { AnswerBudget } from '../limits/answer-budget.ts';
import type { Logger } from '../telemetry/logger.ts';
import { HttpUpstream } from '../upstream/http/http-upstream.ts';
import { PerClientUpstream } from '../upstream/http/per-client-upstream.ts';
import { RoutedUpstream } from '../upstream/routed/routed-upstream.ts';
import { StdioUpstream } from '../upstream/stdio/stdio-upstream.ts';
import type { Upstream } from '../upstream/upstream.ts';

/** `budget`: the memory budget of the answers in flight, HTTP and stdio (limits.maxInflightAnswerBytes). */
export function createUpstream(u: UpstreamConfig, logger: Logger, budget?: AnswerBudget): Upstream {
  if (u.kind === 'stdio') return new StdioUpstream(u, logger, Date.now, budget);
  if (u.route) return new RoutedUpstream(u, logger, budget);
  return u.session.mode === 'perClient' ? new PerClientUpstream(u, logger, budget) : new HttpUpstream(u, logger, budget);
}

export function createUpstreams(config: GatewayConfig, logger: Logger, budget?: AnswerBudget): Upstream[] {
  return config.upstreams.map((u) => createUpstream(u, logger, budget));
}

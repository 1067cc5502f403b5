// Which of an upstream's notifications about one request reach the client that made it,
// on that request's response stream (MCP 2026-07-28, basic/transports/streamable-http (responses)):
// - `notifications/message` (logging) only at or above the level the client asked for: a
//   2026-07-28 request opts in per request with `_meta["io.modelcontextprotocol/logLevel"]`,
//   and without it gets none; a 2025-11-25 session sets a level with `logging/setLevel`,
//   and without one gets what the upstream sends;
// - a 2026-07-28 client gets only what that era sends about a request (progress and log
//   messages), never a 2025-only notification (`notifications/elicitation/complete`,
//   `notifications/tasks/status`, ...) relayed from a legacy upstream;
// - everything else passes as it came.
import { isJsonObject, type JsonObject, type JsonRpcNotification } from '../protocol/message.ts';
import { severityOf } from '../protocol/log-levels.ts';
import { META_LOG_LEVEL } from '../protocol/meta-keys.ts';
import { type Era } from '../protocol/versions.ts';


const MODERN_REQUEST_NOTIFICATIONS: ReadonlySet<string> = new Set(['notifications/progress', 'notifications/message']);

/** Whether `n` goes to a client of `era` that asked for `logLevel` (undefined: did not ask). */
export function relaysToClient(n: JsonRpcNotification, era: Era, logLevel: string | undefined): boolean {
  if (n.method === 'notifications/message') {
    if (logLevel === undefined) return era === 'legacy';
    const level = typeof n.params?.level === 'string' ? severityOf(n.params.level) : undefined;
    return level === undefined || level >= (severityOf(logLevel) ?? 0);
  }
  return era === 'legacy' || MODERN_REQUEST_NOTIFICATIONS.has(n.method);
}

/** A 2025-11-25 request's params carrying its session's log level in `_meta`, as a modern
 * upstream takes it (README, Protocol eras: bridging); unchanged without a level or when one is there. */
export function withSessionLogLevel(params: JsonObject, level: string | undefined): JsonObject {
  if (level === undefined) return params;
  const meta = isJsonObject(params._meta) ? params._meta : {};
  if (typeof meta[META_LOG_LEVEL] === 'string') return params;
  return { ...params, _meta: { ...meta, [META_LOG_LEVEL]: level } };
}

// The two parts that outlive a config reload but must act as the generation serving now:
// the /mcp endpoint's method table and the resource subscriptions' policy. Each is the
// interface itself, forwarding every call to what `now()` returns at the time of the call, so
// a request that reaches them after a swap meets the new config.
import type { Gateway } from '../mcp/method-table.ts';
import type { Enforcer } from '../policy/enforcer.ts';

export function liveGateway(now: () => Gateway): Gateway {
  return {
    handle: (call) => now().handle(call),
    knows: (method, era) => now().knows(method, era),
    capabilities: () => now().capabilities(),
    legacyCapabilities: () => now().legacyCapabilities(),
    instructions: () => now().instructions(),
  };
}

export function liveEnforcer(now: () => Enforcer): Enforcer {
  return {
    listFilter: (principal, kind, server) => now().listFilter(principal, kind, server),
    visible: (principal, kind, item, origin, server) => now().visible(principal, kind, item, origin, server),
    gate: (principal, target) => now().gate(principal, target),
  };
}

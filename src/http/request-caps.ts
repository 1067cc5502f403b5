// Load shedding in front of the MCP endpoint (README, Limits): past limits.maxConnections,
// limits.maxConcurrentRequests (whoever sends them) or limits.maxConcurrentRequestsPerPrincipal,
// a request is refused at once with 503, Retry-After and a JSON-RPC error naming the limit,
// instead of joining a queue that slows every caller down and holds memory for each. The
// refusals are values (replies.ts), so the observe layer audits and counts them like any other.
//
// A request is being answered from its arrival until its reply is handed over, and, for a
// call answered as an SSE stream (progress before the result), until that stream is done.
// Notification streams (listen, legacy GET) stop counting when they open: they are held for
// as long as their client listens and have their own cap (limits.maxStreams).
//
// The overall cap comes before identity, so that shedding load costs no token check; the
// per-principal one after it, since it needs to know who is asking.
import type { Principal } from '../identity/principal.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { Era } from '../protocol/versions.ts';
import type { Layer } from './compose.ts';
import type { ConnectionCap } from './connection-cap.ts';
import type { HttpReply, HttpRequest } from './http-io.ts';
import { eraOf } from './mcp-layers.ts';
import { refuse, type RefusalReply } from './replies.ts';

/** A full request cap frees within the time of a call or two; a full connection cap as clients leave. */
const REQUEST_RETRY_AFTER_MS = 1_000;
const CONNECTION_RETRY_AFTER_MS = 5_000;

type PrincipalEndpoint = (req: HttpRequest, principal: Principal) => Promise<HttpReply>;

function overCapacity(limit: string, message: string, retryAfterMs: number): GatewayError {
  return { kind: 'over_capacity', limit, message, retryAfterMs };
}

/** The refusal of a full overall or connection cap depends on nothing but the cap and the
 * era guessed from the headers, so it is built once per cap value and era (its JSON text
 * included) and handed out frozen to every request shed: under overload a refusal costs no
 * serialisation. A reload that changes the cap gets new ones. */
function prebuiltRefusals(build: (max: number, era: Era) => RefusalReply): (max: number, era: Era) => RefusalReply {
  let builtFor = Number.NaN;
  let legacy: RefusalReply | undefined;
  let modern: RefusalReply | undefined;
  const frozen = (r: RefusalReply): RefusalReply => Object.freeze({ ...r, headers: Object.freeze({ ...r.headers }), refusal: Object.freeze({ ...r.refusal, error: Object.freeze({ ...r.refusal.error }) }) });
  return (max, era) => {
    if (max !== builtFor) {
      builtFor = max;
      legacy = modern = undefined;
    }
    return era === 'legacy' ? (legacy ??= frozen(build(max, era))) : (modern ??= frozen(build(max, era)));
  };
}

/** A request on a connection past limits.maxConnections: refused, and the connection closed. */
export function connectionCapLayer(cap: ConnectionCap): Layer {
  const refusal = prebuiltRefusals((max, era) => {
    const error = overCapacity('maxConnections', `The gateway holds as many client connections as it may (limits.maxConnections, ${max}); try again later`, CONNECTION_RETRY_AFTER_MS);
    return refuse({ error, era }, { connection: 'close' });
  });
  return (req, next) => (cap.isOver(req.socket) ? Promise.resolve(refusal(cap.limit, eraOf(req))) : next(req));
}

/** The caps as the config serving now has them (a reload may change them). */
export interface RequestCaps {
  maxConcurrentRequests: number;
  maxConcurrentRequestsPerPrincipal: number;
}

export class InFlightRequests {
  #all = 0;
  readonly #byPrincipal = new Map<string, number>();
  readonly #releaseOne = (): void => {
    this.#all--;
  };

  readonly #overallRefusal = prebuiltRefusals((max, era) => {
    const error = overCapacity('maxConcurrentRequests', `The gateway is answering as many requests as it may at once (limits.maxConcurrentRequests, ${max}); try again shortly`, REQUEST_RETRY_AFTER_MS);
    return refuse({ error, era });
  });

  constructor(private readonly caps: () => RequestCaps) {}

  /** The overall cap, as a layer in front of identity: the first check after the connection
   * cap, before the guards, identity and any read of the body. */
  overall(): Layer {
    return (req, next) => {
      const max = this.caps().maxConcurrentRequests;
      if (this.#all >= max) return Promise.resolve(this.#overallRefusal(max, eraOf(req)));
      this.#all++;
      // Given back when the listener hands the reply over (or the request fails): no promise here.
      req.holdUntilAnswered(this.#releaseOne);
      return next(req);
    };
  }

  /** The per-principal cap, around the endpoint that identity hands its principal. */
  perPrincipal(endpoint: PrincipalEndpoint): PrincipalEndpoint {
    return (req, principal) => {
      const owner = principal.authContext;
      const max = this.caps().maxConcurrentRequestsPerPrincipal;
      const held = this.#byPrincipal.get(owner) ?? 0;
      if (held >= max) {
        const error = overCapacity(
          'maxConcurrentRequestsPerPrincipal',
          `This principal has as many requests being answered at once as it may (limits.maxConcurrentRequestsPerPrincipal, ${max}); try again shortly`,
          REQUEST_RETRY_AFTER_MS,
        );
        return Promise.resolve(refuse({ error, era: eraOf(req), principal }));
      }
      this.#byPrincipal.set(owner, held + 1);
      const release = (): void => {
        const n = this.#byPrincipal.get(owner) ?? 1;
        if (n <= 1) this.#byPrincipal.delete(owner);
        else this.#byPrincipal.set(owner, n - 1);
      };
      req.holdUntilAnswered(release);
      return endpoint(req, principal);
    };
  }

  /** Requests being answered now, overall. */
  size(): number {
    return this.#all;
  }
}

// A tools/call target as the target sequence reads it (target-sequence.ts Resolved): one object
// per call whose checks, upstream params and headers, rewrite and refresh are methods on the
// prototype, reading what the call resolved to, not a set of closures made for every call. The
// parts only some calls read (the listed item, the answer for a hidden tool) are made on first
// read. What a call resolved to is worked out once (targets.ts, toolTarget); a refresh after an
// upstream refused the gateway's Mcp-* headers keeps that and takes the fresh catalog entry.
import type { Catalog, Resolved as CatalogResolved } from '../catalog/catalog.ts';
import type { ItemOrigin } from '../catalog/merge.ts';
import type { GatewayConfig } from '../config/types.ts';
import { buildParamHeaders, type HeaderParamValue } from '../headers/param-headers.ts';
import { namedArgumentProblem, refusedArgument, upstreamArguments, withOutputNote } from '../overlays/overlay-arguments.ts';
import { unknownError, type CallTarget } from '../policy/enforcer.ts';
import type { Reply } from '../protocol/call.ts';
import type { GatewayError } from '../protocol/errors.ts';
import { isJsonObject, type JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import type { SchemaValidator } from '../validation/schema-validator.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { Resolved } from './target-sequence.ts';

/** What every tool resolution of one gateway shares (made once, in targets.ts). */
export interface ToolContext {
  readonly config: GatewayConfig;
  readonly catalog: Catalog;
  readonly validator: SchemaValidator;
  /** The result checked against the tool's outputSchema (validation.outputs). */
  validateOutput(tool: JsonObject, name: string, result: JsonObject): JsonObject;
  /** A schema the gateway cannot compile: said once per schema. */
  reportUnchecked(schema: JsonObject, tool: string, upstream: string, reason: string): void;
}

/** What the call resolved to, worked out once from the client's request and the first catalog entry. */
export interface ToolCall {
  readonly authContext: string;
  /** The exposed name the client called. */
  readonly name: string;
  /** The client's arguments. */
  readonly args: JsonObject | undefined;
  readonly target: CallTarget;
  readonly paramValues?: Readonly<Record<string, HeaderParamValue>>;
  readonly filled?: Readonly<Record<string, 'fixed' | 'default'>>;
  readonly precheck?: GatewayError;
  /** The arguments are checked against this schema (validation.arguments, or an enforced overlay). */
  readonly inputSchema: JsonObject | undefined;
}

/** Where a listed item came from, with the name policy judges when that is not the exposed one. */
export function originOf(f: CatalogResolved): ItemOrigin {
  return f.policyName === undefined ? { upstream: f.upstream.name, original: f.name } : { upstream: f.upstream.name, original: f.name, policyName: f.policyName };
}

export class ToolResolution implements Resolved {
  #listed: { list: ListKind; item: JsonObject; origin: ItemOrigin } | undefined;
  #unknown: GatewayError | undefined;

  constructor(
    private readonly ctx: ToolContext,
    private readonly c: ToolCall,
    private readonly f: CatalogResolved,
    /** false once refreshed: the sequence retries once. */
    private readonly refreshable = true,
  ) {}

  // What the sequence reads of the call and its catalog entry, read where it is kept.
  get judge(): 'call' {
    return 'call';
  }

  get target(): CallTarget {
    return this.c.target;
  }

  get upstream(): Upstream {
    return this.f.upstream;
  }

  get paramValues(): Readonly<Record<string, HeaderParamValue>> | undefined {
    return this.c.paramValues;
  }

  get filled(): Readonly<Record<string, 'fixed' | 'default'>> | undefined {
    return this.c.filled;
  }

  get precheck(): GatewayError | undefined {
    return this.c.precheck;
  }

  get readsResult(): boolean {
    const overlay = this.f.overlay?.overlay;
    return (this.ctx.config.validation.outputs !== 'off' && isJsonObject(this.f.item.outputSchema)) || (overlay?.kind === 'tools' && overlay.outputNote !== undefined);
  }

  get listed(): { list: ListKind; item: JsonObject; origin: ItemOrigin } {
    return (this.#listed ??= { list: 'tools', item: this.f.item, origin: originOf(this.f) });
  }

  get unknown(): GatewayError {
    return (this.#unknown ??= unknownError({ kind: 'tool', name: this.c.name }));
  }

  check(): GatewayError | undefined {
    const { c, f, ctx } = this;
    const o = f.overlay;
    const kept = o && refusedArgument(o, c.args);
    if (kept) return { kind: 'invalid_params', message: `Invalid arguments for tool ${c.name}: argument "${kept}" is set by the gateway; leave it out` };
    if (c.inputSchema === undefined) return undefined;
    const v = ctx.validator.validate(c.inputSchema, c.args ?? {});
    if (v.kind === 'unchecked') ctx.reportUnchecked(c.inputSchema, c.name, f.upstream.name, v.reason);
    return v.kind === 'invalid' ? { kind: 'invalid_params', message: `Invalid arguments for tool ${c.name}: ${o ? namedArgumentProblem(v.message) : v.message}` } : undefined;
  }

  upstreamParams(p: JsonObject): JsonObject {
    const f = this.f;
    if (!f.overlay) return { ...p, name: f.name };
    return { ...p, name: f.name, ...(isJsonObject(p.arguments) || p.arguments === undefined ? { arguments: upstreamArguments(f.overlay, p.arguments as JsonObject | undefined) ?? {} } : {}) };
  }

  upstreamHeaders(): Result<Record<string, string>, GatewayError> {
    const { f, c } = this;
    const h = f.overlay ? buildParamHeaders(f.overlay.upstreamHeaderParams, upstreamArguments(f.overlay, c.args)) : buildParamHeaders(f.headerParams, c.args);
    return h.ok ? ok(h.value) : err({ kind: 'invalid_params', message: h.error });
  }

  rewrite(reply: Reply): Reply {
    if (!reply.ok) return reply;
    const f = this.f;
    const overlay = f.overlay?.overlay;
    return ok(withOutputNote(this.ctx.validateOutput(f.item, this.c.name, reply.value), overlay?.kind === 'tools' ? overlay.outputNote : undefined));
  }

  async refresh(): Promise<Resolved | undefined> {
    if (!this.refreshable) return undefined;
    const { ctx, c, f } = this;
    ctx.catalog.invalidate(f.upstream.name, 'tools');
    const fresh = await ctx.catalog.resolve('tools', c.name, c.authContext);
    return fresh ? new ToolResolution(ctx, c, fresh, false) : undefined;
  }
}

// Applies overlays to one merged tools or prompts view: the client's view of each overlaid
// item (name, title, description, annotations, arguments), the index that routes the new name
// back to the upstream's own, and the items held back. Pure: built once per merged view and
// shared by every caller of that view; a call only adds the overlay's arguments
// (overlay-arguments.ts), and a tool without an overlay costs what it did.
//
// An item is held back (absent from lists, "Unknown tool" when called) rather than served
// with a stale or broken overlay, because an overlay is a statement about one exact upstream
// definition (its sha256): `quarantined` when the upstream definition changed, `unconfirmed`
// when no hash was recorded yet, `invalid` when the overlay does not fit the definition (a
// missing argument, a wider schema, a hidden required argument without a value, a colliding
// rename). An overlay whose item no listed part has is `missing`. Reporting the held items
// (logs, audit, list_changed) is the catalog's job (overlay-states.ts).
import type { HeaderParam } from '../headers/annotations.ts';
import type { ItemOrigin } from '../catalog/merge.ts';
import type { MergedView } from '../catalog/merged-view.ts';
import { listVersion } from '../catalog/cursor.ts';
import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { narrowInputSchema, type CheckValue } from './narrow-input-schema.ts';
import type { Overlay, PromptOverlay, ToolOverlay } from './overlay-config.ts';
import { overlayHash } from './overlay-hash.ts';

/** What a call to an overlaid item needs: what the client may not send, what to add. */
export interface AppliedOverlay {
  overlay: Overlay;
  /** The upstream's own x-mcp-header params (tools): its Mcp-Param-* come from the full arguments. */
  upstreamHeaderParams: readonly HeaderParam[];
  /** Arguments the client may not send (fixed or hidden). */
  hidden: readonly string[];
  fixed: Readonly<JsonObject>;
  /** Sent when the client leaves them out. */
  defaults: Readonly<JsonObject>;
  /** The client's arguments must be checked against the overlaid schema, whatever `validation` says. */
  enforced: boolean;
}

export type HeldState = 'quarantined' | 'unconfirmed' | 'invalid' | 'missing';

export interface HeldOverlay {
  overlay: Overlay;
  state: HeldState;
  reason: string;
  /** The item it was meant for, when one was found. */
  upstream?: string;
  original?: string;
  /** The hash of the upstream definition as listed now. */
  current?: string;
}

export interface OverlaidView extends MergedView {
  overlays: ReadonlyMap<string, AppliedOverlay>;
  held: readonly HeldOverlay[];
}

interface Plan {
  item: JsonObject;
  origin: ItemOrigin;
  name: string;
  applied?: AppliedOverlay;
  /** Held back once its name is known not to collide: the collision is the clearer report. */
  unconfirmed?: HeldOverlay;
}

/** The overlay meant for an item of the merged list: keyed by its upstream's own name first. */
export function overlayLookup(overlays: readonly Overlay[]): (exposed: string, origin: ItemOrigin) => Overlay | undefined {
  const byUpstream = new Map<string, Overlay>();
  const byExposed = new Map<string, Overlay>();
  for (const o of overlays) {
    if (o.upstream === undefined) byExposed.set(o.target, o);
    else byUpstream.set(`${o.upstream}\u0000${o.target}`, o);
  }
  return (exposed, origin) => byUpstream.get(`${origin.upstream}\u0000${origin.original}`) ?? byExposed.get(exposed);
}

/** An endpoint's overlay of an item: its own (a virtual server's `overlays`), else the
 * gateway-wide one. A gateway-wide overlay without `upstream` names the item as the default
 * endpoint does, which a `prefix: none` server keeps as the item's policy name. */
export function endpointLookup(own: readonly Overlay[], wide: readonly Overlay[]): (exposed: string, origin: ItemOrigin) => Overlay | undefined {
  const mine = overlayLookup(own);
  if (wide.length === 0) return mine;
  const gateway = overlayLookup(wide);
  return (exposed, origin) => mine(exposed, origin) ?? gateway(origin.policyName ?? exposed, origin);
}

/** `overlays`: the endpoint's own, each reported `missing` when its item is not in the view;
 * `wide`: the gateway-wide ones on a virtual server, where an item outside the server's
 * selection is simply not there. */
export function applyOverlays(view: MergedView, overlays: readonly Overlay[], check: CheckValue, wide: readonly Overlay[] = []): OverlaidView {
  const kind = view.kind;
  const held: HeldOverlay[] = [];
  const met = new Set<Overlay>();
  const find = endpointLookup(overlays, wide);
  const plans: Plan[] = [];
  for (const item of view.items) {
    const exposed = item.name as string;
    const origin = view.index.get(exposed)!;
    const o = find(exposed, origin);
    if (o === undefined) {
      plans.push({ item, origin, name: exposed });
      continue;
    }
    met.add(o);
    const at = { overlay: o, upstream: origin.upstream, original: origin.original, current: overlayHash(o.kind, item) };
    // A changed definition is quarantined whatever the overlay would make of it; an overlay
    // not yet confirmed is still checked, so that a bad one is reported as such at once.
    if (o.sha256 !== undefined && o.sha256 !== at.current) {
      held.push({ ...at, state: 'quarantined', reason: `the upstream definition changed since the overlay was confirmed (sha256 ${o.sha256}, now ${at.current})` });
      continue;
    }
    const made = o.kind === 'tools' ? overlayTool(item, o, view.headerParams.get(exposed) ?? [], check) : overlayPrompt(item, o);
    if (typeof made === 'string') {
      held.push({ ...at, state: 'invalid', reason: made });
      continue;
    }
    const unconfirmed: HeldOverlay | undefined = o.sha256 === undefined ? { ...at, state: 'unconfirmed', reason: 'no sha256 recorded for the upstream definition: run `gatehouse overlays confirm`' } : undefined;
    plans.push({ item: made.item, origin, name: made.item.name as string, applied: made.applied, ...(unconfirmed ? { unconfirmed } : {}) });
  }
  for (const o of overlays) {
    if (met.has(o)) continue;
    const listed = o.upstream === undefined ? view.missing.length === 0 : view.generations.has(o.upstream);
    if (listed) held.push({ overlay: o, state: 'missing', reason: o.upstream === undefined ? `no ${noun(kind)} is exposed as "${o.target}"` : `upstream "${o.upstream}" lists no ${noun(kind)} "${o.target}"` });
  }

  // A rename may not take a name another item keeps, nor the name policy knows another by
  // (a `prefix: none` server's items keep their default-endpoint names for policy): the
  // overlay is the one held back.
  const keeps = new Map<string, Plan>();
  for (const p of plans) {
    if (p.applied?.overlay.name !== undefined) continue;
    keeps.set(p.name, p);
    if (p.origin.policyName !== undefined && !keeps.has(p.origin.policyName)) keeps.set(p.origin.policyName, p);
  }
  const items: JsonObject[] = [];
  const index = new Map<string, ItemOrigin>();
  const byName = new Map<string, JsonObject>();
  const headerParams = new Map<string, readonly HeaderParam[]>();
  const applied = new Map<string, AppliedOverlay>();
  for (const p of plans) {
    const other = p.applied?.overlay.name === undefined ? undefined : (keeps.get(p.name) ?? (index.has(p.name) ? { origin: index.get(p.name)! } : undefined));
    if (other) {
      const taken = other.origin.policyName === p.name ? `the name policy knows the ${noun(kind)} "${other.origin.original}" of upstream "${other.origin.upstream}" by` : `the ${noun(kind)} "${p.name}" of upstream "${other.origin.upstream}"`;
      held.push({ overlay: p.applied!.overlay, state: 'invalid', upstream: p.origin.upstream, original: p.origin.original, reason: `the rename to "${p.name}" collides with ${taken}` });
      continue;
    }
    if (p.unconfirmed) {
      held.push(p.unconfirmed);
      continue;
    }
    items.push(p.item);
    // Renamed: policy, pins and the audit trail know the item by the name its clients see.
    index.set(p.name, p.applied?.overlay.name !== undefined && p.origin.policyName !== undefined ? { upstream: p.origin.upstream, original: p.origin.original } : p.origin);
    byName.set(p.name, p.item);
    // The client mirrors only what it can see: a hidden argument's header is the gateway's to send.
    const hp = p.applied ? p.applied.upstreamHeaderParams.filter((h) => !p.applied!.hidden.includes(h.path[0]!)) : (view.headerParams.get(p.name) ?? []);
    if (hp.length > 0) headerParams.set(p.name, hp);
    if (p.applied) applied.set(p.name, p.applied);
  }
  // Charged like the view it replaces, twice: a second set of copies and maps (merged-view.ts bytes).
  return { ...view, items, index, byName, headerParams, version: listVersion(items), overlays: applied, held, bytes: view.bytes * 2 };
}

function noun(kind: MergedView['kind']): string {
  return kind === 'tools' ? 'tool' : 'prompt';
}

function overlayTool(item: JsonObject, o: ToolOverlay, params: readonly HeaderParam[], check: CheckValue): { item: JsonObject; applied: AppliedOverlay } | string {
  const out: JsonObject = { ...item, name: o.name ?? (item.name as string) };
  if (o.title !== undefined) out.title = o.title;
  if (o.description !== undefined) out.description = o.description;
  if (o.annotations !== undefined) out.annotations = { ...(isJsonObject(item.annotations) ? item.annotations : {}), ...o.annotations };
  const fixed: JsonObject = {};
  const defaults: JsonObject = {};
  const hidden: string[] = [];
  let enforced = false;
  if (Object.keys(o.arguments).length > 0) {
    const input = isJsonObject(item.inputSchema) ? item.inputSchema : { type: 'object' };
    const narrowed = narrowInputSchema(input, o.arguments, check);
    if (!narrowed.ok) return narrowed.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    out.inputSchema = narrowed.value.schema;
    enforced = narrowed.value.enforced;
    for (const [name, a] of Object.entries(o.arguments)) {
      if (a.hidden) hidden.push(name);
      if (a.fixed !== undefined) fixed[name] = a.fixed;
      if (a.default !== undefined) defaults[name] = a.default;
    }
  }
  return { item: out, applied: { overlay: o, upstreamHeaderParams: params, hidden, fixed, defaults, enforced } };
}

function overlayPrompt(item: JsonObject, o: PromptOverlay): { item: JsonObject; applied: AppliedOverlay } | string {
  const out: JsonObject = { ...item, name: o.name ?? (item.name as string) };
  if (o.title !== undefined) out.title = o.title;
  if (o.description !== undefined) out.description = o.description;
  const args = Array.isArray(item.arguments) ? item.arguments.filter(isJsonObject) : [];
  const problems: string[] = [];
  const fixed: JsonObject = {};
  const hidden: string[] = [];
  for (const [name, a] of Object.entries(o.arguments)) {
    const arg = args.find((x) => x.name === name);
    const at = `/arguments/${name}`;
    if (!arg) problems.push(`${at}: the upstream prompt has no argument "${name}"`);
    else if (a.fixed !== undefined && typeof a.fixed !== 'string') problems.push(`${at}/fixed: prompt arguments are strings (MCP 2026-07-28, server/prompts)`);
    else if (a.hidden && a.fixed === undefined && arg.required === true) problems.push(`${at}/hidden: the upstream requires "${name}": a hidden required argument needs a \`fixed\` value`);
    if (a.hidden) hidden.push(name);
    if (a.fixed !== undefined) fixed[name] = a.fixed;
  }
  if (problems.length > 0) return problems.join('; ');
  if (Object.keys(o.arguments).length > 0) {
    out.arguments = args
      .filter((x) => !hidden.includes(x.name as string))
      .map((x): JsonValue => {
        const d = o.arguments[x.name as string]?.description;
        return d === undefined ? x : { ...x, description: d };
      });
  }
  return { item: out, applied: { overlay: o, upstreamHeaderParams: [], hidden, fixed, defaults: {}, enforced: false } };
}

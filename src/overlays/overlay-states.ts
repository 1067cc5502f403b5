// The edge of the overlays: each merged view the catalog builds is overlaid here once
// (apply-overlays.ts, pure), and the catalog learns what that changed. An overlay whose item went into or out of
// quarantine (or became invalid, missing, or applied) is logged, handed to the listener (the
// audit trail), and, when clients may already hold a list without (or with) the item, the
// list is announced as changed: the upstream said nothing, so only the gateway can tell them
// (MCP 2026-07-28, server/tools: notifications/tools/list_changed).
import type { MergedView } from '../catalog/merged-view.ts';
import type { Logger } from '../telemetry/logger.ts';
import { SchemaValidator } from '../validation/schema-validator.ts';
import type { JsonObject } from '../protocol/message.ts';
import type { CheckValue } from './narrow-input-schema.ts';
import { describeSource, NO_OVERLAYS, type Overlay, type OverlaysConfig } from './overlay-config.ts';
import { applyOverlays, type HeldState, type OverlaidView } from './apply-overlays.ts';

export type { AppliedOverlay } from './apply-overlays.ts';

export interface OverlayChange {
  kind: 'tools' | 'prompts';
  /** The virtual server whose view this is; unset: the default endpoint. */
  server?: string;
  /** Where the overlay is written, `file:line /overlays/tools/0`. */
  overlay: string;
  target: string;
  upstream?: string;
  state: HeldState | 'applied';
  reason?: string;
  current?: string;
}

/** The validator as the pure core asks for it: a problem, or undefined. */
export function checkWith(validator: SchemaValidator): CheckValue {
  return (schema, value) => {
    const v = validator.validate(schema as JsonObject, value);
    return v.kind === 'invalid' ? v.message : undefined;
  };
}

export class OverlayStates {
  private readonly last = new Map<Overlay, string>();
  private listener: ((change: OverlayChange) => void) | undefined;
  private readonly check = checkWith(new SchemaValidator());

  /** `overlays`: the endpoint's own; `wide`: on a virtual server, the gateway-wide ones, which
   * apply to every item its own do not name; `server`: that server's name, on every change. */
  constructor(
    private overlays: OverlaysConfig,
    private readonly logger: Logger,
    private readonly announce: (kind: 'tools' | 'prompts') => void,
    private wide: OverlaysConfig = NO_OVERLAYS,
    private readonly server?: string,
  ) {}

  /** A config reload: whether the overlays differ, so that every tools and prompts view must be
   * rebuilt from fresh lists. The new overlays start with no state; the reload tells clients what changed. */
  reconfigure(overlays: OverlaysConfig, wide: OverlaysConfig = NO_OVERLAYS): boolean {
    if (JSON.stringify([overlays, wide]) === JSON.stringify([this.overlays, this.wide])) return false;
    [this.overlays, this.wide] = [overlays, wide];
    this.last.clear();
    return true;
  }

  /** The view as clients are served it; the same view when no overlay is configured for its kind. */
  apply(view: MergedView): MergedView {
    const of = (o: OverlaysConfig): readonly Overlay[] => (view.kind === 'tools' ? o.tools : view.kind === 'prompts' ? o.prompts : []);
    const [own, wide] = [of(this.overlays), of(this.wide)];
    if (own.length === 0 && wide.length === 0) return view;
    const overlaid = applyOverlays(view, own, this.check, wide);
    this.observe(overlaid, wide.length === 0 ? own : [...own, ...wide]);
    return overlaid;
  }

  onChange(listener: (change: OverlayChange) => void): void {
    this.listener = listener;
  }

  private observe(view: OverlaidView, overlays: readonly Overlay[]): void {
    const kind = view.kind as 'tools' | 'prompts';
    const states = new Map<Overlay, Omit<OverlayChange, 'kind' | 'overlay' | 'target'>>();
    for (const a of view.overlays.values()) states.set(a.overlay, { state: 'applied' });
    for (const h of view.held) states.set(h.overlay, { state: h.state, reason: h.reason, ...(h.upstream ? { upstream: h.upstream } : {}), ...(h.current ? { current: h.current } : {}) });
    let visibleChange = false;
    for (const o of overlays) {
      const s = states.get(o);
      // Not in this view (its upstream's part is missing): nothing learnt.
      if (s === undefined) continue;
      const key = `${s.state}\u0000${s.current ?? ''}`;
      const before = this.last.get(o);
      if (before === key) continue;
      this.last.set(o, key);
      const change: OverlayChange = { kind, ...(this.server === undefined ? {} : { server: this.server }), overlay: describeSource(o.source), target: o.target, ...(o.upstream ? { upstream: o.upstream } : {}), ...s };
      const wasApplied = before?.startsWith('applied\u0000');
      if (before !== undefined && wasApplied !== (s.state === 'applied')) visibleChange = true;
      if (s.state === 'applied') this.logger.info('overlay applied', { ...change });
      else if (s.state === 'quarantined' || s.state === 'unconfirmed') this.logger.warn('overlaid item held back until its overlay is confirmed', { ...change });
      else this.logger.error('invalid overlay: its item is held back', { ...change });
      this.listener?.(change);
    }
    if (visibleChange) this.announce(kind);
  }
}

// What `gatehouse overlays confirm` and `gatehouse catalog show` learn about each overlay
// from the upstreams' lists as they are now: the hash of the definition it is meant for, and
// whatever makes it unusable (the item is missing, the overlay does not fit it). Pure: takes
// the merged views without overlays; the commands reach the upstreams.
import type { MergedView } from '../catalog/merged-view.ts';
import { applyOverlays, overlayLookup } from './apply-overlays.ts';
import type { CheckValue } from './narrow-input-schema.ts';
import type { Overlay } from './overlay-config.ts';
import { overlayHash } from './overlay-hash.ts';

export interface OverlayReview {
  overlay: Overlay;
  /** The hash of the upstream definition now; unset when the item was not found. */
  current?: string;
  /** The upstream and its own name of the item, when found. */
  upstream?: string;
  original?: string;
  /** Why the overlay cannot apply even once confirmed. */
  problem?: string;
}

/** One review per overlay of the view's kind, in config order. */
export function reviewOverlays(raw: MergedView, overlays: readonly Overlay[], check: CheckValue): OverlayReview[] {
  const find = overlayLookup(overlays);
  const found = new Map<Overlay, OverlayReview>();
  for (const item of raw.items) {
    const exposed = item.name as string;
    const origin = raw.index.get(exposed)!;
    const o = find(exposed, origin);
    if (o && !found.has(o)) found.set(o, { overlay: o, current: overlayHash(o.kind, item), upstream: origin.upstream, original: origin.original });
  }
  // As confirmed now: whatever is still held back is wrong with the overlay itself.
  const confirmed = overlays.map((o) => ({ ...o, sha256: found.get(o)?.current ?? o.sha256 }) as Overlay);
  const applied = applyOverlays(raw, confirmed, check);
  return overlays.map((o, i) => {
    const held = applied.held.find((h) => h.overlay === confirmed[i]);
    const review = found.get(o) ?? { overlay: o };
    if (held && held.state !== 'quarantined' && held.state !== 'unconfirmed') return { ...review, problem: held.reason };
    if (!found.has(o)) return { ...review, problem: o.upstream === undefined ? `no ${raw.kind === 'tools' ? 'tool' : 'prompt'} is exposed as "${o.target}"` : `upstream "${o.upstream}" lists no ${raw.kind === 'tools' ? 'tool' : 'prompt'} "${o.target}"` };
    return review;
  });
}

// A count of held things (sessions, streams) with a cap overall and a cap per owner (a
// principal's authorization context), so that one principal cannot take what everyone shares.
// Pure bookkeeping: the caller decides what a refusal looks like.

export type SlotRefusal = 'total' | 'owner';

export class Slots {
  private held = 0;
  private readonly byOwner = new Map<string, number>();

  constructor(
    private max: number,
    private maxPerOwner: number,
  ) {}

  /** New caps (a config reload): slots already held stay held; only new ones see the caps. */
  resize(max: number, maxPerOwner: number): void {
    this.max = max;
    this.maxPerOwner = maxPerOwner;
  }

  /** Which cap a new slot for this owner would break, if any; takes nothing. */
  check(owner: string): SlotRefusal | undefined {
    if (this.held >= this.max) return 'total';
    if ((this.byOwner.get(owner) ?? 0) >= this.maxPerOwner) return 'owner';
    return undefined;
  }

  /** Takes a slot, or says which cap is full. */
  take(owner: string): SlotRefusal | undefined {
    const full = this.check(owner);
    if (full) return full;
    this.held++;
    this.byOwner.set(owner, (this.byOwner.get(owner) ?? 0) + 1);
    return undefined;
  }

  release(owner: string): void {
    const n = this.byOwner.get(owner);
    if (n === undefined) return;
    this.held--;
    if (n <= 1) this.byOwner.delete(owner);
    else this.byOwner.set(owner, n - 1);
  }

  size(): number {
    return this.held;
  }

  sizeOf(owner: string): number {
    return this.byOwner.get(owner) ?? 0;
  }
}

// The size the catalog's byte budgets count for a list: its length as JSON text (UTF-16 code
// units, i.e. bytes for ASCII). The heap holds a parsed list in roughly two to three times
// that; the budgets are documented in those terms (README, Limits).
import type { JsonValue } from '../protocol/message.ts';

/** Charged per item when a list cannot be serialised (a structure too deep for the stack). */
const FALLBACK_ITEM_BYTES = 4096;

export function jsonBytes(items: readonly JsonValue[]): number {
  try {
    return JSON.stringify(items).length;
  } catch {
    return items.length * FALLBACK_ITEM_BYTES;
  }
}

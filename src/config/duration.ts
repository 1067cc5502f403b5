// Durations in the config: `500ms`, `30s`, `5m`, `1h`, or an integer of milliseconds.
// The schema checks the shape; this turns a checked value into milliseconds.

export const DURATION_PATTERN = '^[0-9]+(ms|s|m|h)$';

/**
 * Node's timers hold a signed 32-bit delay; a larger one fires after 1 ms with only a
 * warning (Node docs, setTimeout), so a "very long" timeout would silently become none.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a schema-valid duration, or undefined when it exceeds MAX_DURATION_MS. */
export function durationMs(value: string | number): number | undefined {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else {
    const match = /^([0-9]+)(ms|s|m|h)$/.exec(value);
    if (match === null) throw new Error(`durationMs: unchecked duration ${JSON.stringify(value)}`);
    ms = Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
  }
  return Number.isSafeInteger(ms) && ms <= MAX_DURATION_MS ? ms : undefined;
}

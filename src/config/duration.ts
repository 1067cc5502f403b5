// Durations in the config and policy files: `500ms`, `30s`, `5m`, `1h`, or an integer of
// milliseconds. The schema fragment checks the shape; durationMs turns a checked value into
// milliseconds, and durationTooLong words the one limit a pattern cannot check.

export const DURATION_PATTERN = '^[0-9]+(ms|s|m|h)$';

/**
 * Node's timers hold a signed 32-bit delay; a larger one fires after 1 ms with only a
 * warning (Node docs, setTimeout), so a "very long" timeout would silently become none.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** A duration as written in YAML, before durationMs. */
export type RawDuration = string | number;

/** JSON Schema of a duration; `example` is the form its message suggests ("30s", "5m"). */
export function durationSchema(example: string): Record<string, unknown> {
  return {
    type: ['integer', 'string'],
    minimum: 0,
    maximum: MAX_DURATION_MS,
    pattern: DURATION_PATTERN,
    errorMessage: `expected a duration like "${example}" or a number of milliseconds`,
  };
}

/** durationSchema for a property with a default, which its description states for editors. */
export function defaultedDurationSchema(description: string, fallback: string, example: string): Record<string, unknown> {
  return { description: `${description} Default ${fallback}.`, default: fallback, ...durationSchema(example) };
}

/** The issue for a well-formed duration that durationMs refuses. */
export function durationTooLong(value: RawDuration): string {
  return `expected a duration of at most ${MAX_DURATION_MS} ms (about 24 days), got ${JSON.stringify(value)}`;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a schema-valid duration, or undefined when it exceeds MAX_DURATION_MS. */
export function durationMs(value: RawDuration): number | undefined {
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

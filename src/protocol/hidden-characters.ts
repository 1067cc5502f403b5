// Characters that change what a person sees without being seen themselves: C0 and C1
// controls and DEL (ESC starts terminal sequences that retitle, clear or write the clipboard,
// ECMA-48), line and paragraph separators, bidirectional controls (U+202E makes "\u202Eevil"
// display as "live", CVE-2021-42574), and zero-width and other invisible format characters.
// Client data shown to operators (the approvals console, `gatehouse audit tail/query`) goes
// through here so that every one of them is shown, as an escape, instead of acting. Pure.

/** Every such character; global, for replace(). */
export const HIDDEN_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

const ANY_HIDDEN = new RegExp(HIDDEN_CHARACTERS.source);

export function hasHiddenCharacters(text: string): boolean {
  return ANY_HIDDEN.test(text);
}

/**
 * Each hidden character as a JSON-style `\uXXXX` escape. On JSON text this gives the same JSON
 * value (outside strings JSON holds no such character, and inside them the escape stands for
 * the character itself), so a parser reads back exactly what was stored; on a terminal or in
 * a viewer it is inert.
 */
export function escapeHiddenCharacters(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether any string (or key) in a JSON value holds a hidden character. */
export function valueHasHiddenCharacters(value: unknown): boolean {
  if (typeof value === 'string') return hasHiddenCharacters(value);
  if (Array.isArray(value)) return value.some(valueHasHiddenCharacters);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => hasHiddenCharacters(k) || valueHasHiddenCharacters(v));
}

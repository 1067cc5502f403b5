// Words of tool names, titles, descriptions and argument names, as the search index and its
// queries both see them: identifiers split at `_`, `-`, `.`, camelCase and digit runs
// (`getUserById` -> get user by id), lower-cased, common English function words dropped, and
// a light suffix stemmer so "issues", "issue" and "creating", "create", "created" meet.
// Deterministic and dependency-free; not a linguistic stemmer, and not meant to be one.

const STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'has', 'have', 'i', 'if', 'in', 'into', 'is', 'it', 'its',
  'me', 'my', 'of', 'on', 'or', 'so', 'that', 'the', 'their', 'this', 'to', 'was', 'were', 'will', 'with', 'you', 'your',
]);

// Lower-to-upper ("getUser"), acronym-to-word ("HTTPServer") and letter/digit boundaries.
const CAMEL = /([\p{Ll}\p{N}])(\p{Lu})|(\p{Lu})(\p{Lu}\p{Ll})|(\p{L})(\p{N})|(\p{N})(\p{L})/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** A word reduced to a shared stem: plural, -ing, -ed and a final -e go. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

/** The raw words of a text: identifiers split, lower-cased, nothing dropped or stemmed. */
export function words(text: string): string[] {
  const split = text.replace(CAMEL, (_m, a, b, c, d, e, f, g, h) => (a !== undefined ? `${a} ${b}` : c !== undefined ? `${c} ${d}` : e !== undefined ? `${e} ${f}` : `${g} ${h}`));
  return (split.toLowerCase().match(WORD) ?? []) as string[];
}

/** Index terms of a text, in order, repeats kept (term frequency counts them). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (!STOPWORDS.has(w)) out.push(stem(w));
  return out;
}

// Words of tool names, titles, descriptions and argument names, as the search index and its
// queries both see them: identifiers split at `_`, `-`, `.`, camelCase and digit runs
// (`getUserById` -> get user by id), lower-cased, common English function words dropped, and
// a light suffix stemmer so "issues", "issue" and "creating", "create", "created" meet.
// Deterministic and dependency-free; not a linguistic stemmer, and not meant to be one.

const STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'has', 'have', 'i', 'if', 'in', 'into', 'is', 'it', 'its',
  'me', 'my', 'of', 'on', 'or', 'so', 'that', 'the', 'their', 'this', 'to', 'was', 'were', 'will', 'with', 'you', 'your',
]);

// Lower-to-upper ("getUser"), acronym-to-word ("HTTPServer") and letter/digit boundaries;
// replacement patterns rather than callbacks, which the index build showed up in profiles.
const LOWER_UPPER = /(\p{Ll}|\p{N})(\p{Lu})/gu;
const ACRONYM_WORD = /(\p{Lu})(\p{Lu}\p{Ll})/gu;
const LETTER_DIGIT = /(\p{L})(\p{N})/gu;
const DIGIT_LETTER = /(\p{N})(\p{L})/gu;
const WORD = /[\p{L}\p{N}]+/gu;
// The same for ASCII text (nearly every tool definition), which V8 runs several times faster.
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_LOWER_UPPER = /([a-z0-9])([A-Z])/g;
const ASCII_ACRONYM_WORD = /([A-Z])([A-Z][a-z])/g;
const ASCII_LETTER_DIGIT = /([a-zA-Z])([0-9])/g;
const ASCII_DIGIT_LETTER = /([0-9])([a-zA-Z])/g;
const ASCII_WORD = /[a-z0-9]+/g;
const ASCII_SPLIT_NEEDED = /[A-Z]|[a-z][0-9]|[0-9][a-z]/;

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
  if (ASCII.test(text)) {
    if (!ASCII_SPLIT_NEEDED.test(text)) return text.match(ASCII_WORD) ?? [];
    const ascii = text.replace(ASCII_LOWER_UPPER, '$1 $2').replace(ASCII_ACRONYM_WORD, '$1 $2').replace(ASCII_LETTER_DIGIT, '$1 $2').replace(ASCII_DIGIT_LETTER, '$1 $2');
    return ascii.toLowerCase().match(ASCII_WORD) ?? [];
  }
  const split = text.replace(LOWER_UPPER, '$1 $2').replace(ACRONYM_WORD, '$1 $2').replace(LETTER_DIGIT, '$1 $2').replace(DIGIT_LETTER, '$1 $2');
  return split.toLowerCase().match(WORD) ?? [];
}

/** Index terms of a text, in order, repeats kept (term frequency counts them). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (!STOPWORDS.has(w)) out.push(stem(w));
  return out;
}

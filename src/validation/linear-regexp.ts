// The regular-expression engine for every Ajv that checks what clients send (tool arguments,
// policy `arguments` predicates): JSON Schema `pattern` on RE2 (re2js), whose time is linear
// in the input, instead of JavaScript's backtracking RegExp, so a pattern like `^(a+)+$` in
// an upstream's schema or a policy file cannot be driven by a client's string into holding
// the event loop. The few patterns RE2 cannot express (lookaround, backreferences) run on
// RegExp as before.
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** Ajv's regular-expression engine: RE2 where the pattern allows, RegExp otherwise. */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    let re2: RE2JS;
    try {
      re2 = RE2JS.compile(pattern);
    } catch {
      return new RegExp(pattern, flags);
    }
    // Ajv caches compiled patterns under toString(), as it would a RegExp's "/source/flags".
    const key = `re2:/${pattern}/${flags}`;
    const like: RegExpLike & { toString(): string } = { test: (text: string) => re2.test(text), toString: () => key };
    return like;
  },
  { code: 'linearRegExp' },
);


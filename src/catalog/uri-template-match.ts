// Matching a concrete uri against an RFC 6570 uriTemplate (MCP 2026-07-28, server/resources and server/prompts: ResourceTemplate
// .uriTemplate is RFC 6570), for routing resources/read to the upstream that owns a template.
// Only "could this uri have come from this template?" is answered; variables are not extracted.
//
// Each expression becomes a RegExp fragment by operator (RFC 6570 §3.2); the literal parts are
// escaped. Modifiers (`:n` prefix, `*` explode) do not change the shape matched here. Operators
// RFC 6570 reserves for future use (= , ! @ |) and malformed templates never match.
//
// Backtracking: adjacent expressions (`{a}{b}`) give polynomial, not exponential, worst cases;
// callers bound the uri length (body limit) and templates come from configured upstreams.

const OPERATOR_PATTERN: Readonly<Record<string, string>> = {
  '': '[^/?#]+', // simple: one path segment's worth
  '+': '.+', // reserved expansion: may span '/', '?' and '#'
  '#': '(?:#.*)?', // fragment; an undefined variable expands to nothing
  '.': '(?:\\.[^/?#.]*)*', // label expansion, one '.' per value
  '/': '(?:/[^/?#]*)*', // path segments, one '/' per value
  ';': '(?:;[^/?#;]*)*', // path-style parameters
  '?': '(?:\\?[^#]*)?', // form-style query
  '&': '(?:&[^#]*)?', // query continuation
};

const VARIABLE = /^[A-Za-z0-9_.%]+(?::[1-9][0-9]{0,3}|\*)?$/;

/** A compiled matcher, or undefined when the template is not valid RFC 6570. */
export function compileUriTemplate(template: string): RegExp | undefined {
  let source = '^';
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf('{', pos);
    const close = template.indexOf('}', pos);
    if (open === -1) {
      if (close !== -1) return undefined;
      source += escapeLiteral(template.slice(pos));
      break;
    }
    if (close !== -1 && close < open) return undefined;
    const end = template.indexOf('}', open);
    if (end === -1) return undefined;
    source += escapeLiteral(template.slice(pos, open));
    const fragment = expressionPattern(template.slice(open + 1, end));
    if (fragment === undefined) return undefined;
    source += fragment;
    pos = end + 1;
  }
  return new RegExp(`${source}$`, 'u');
}

function expressionPattern(expression: string): string | undefined {
  const first = expression.charAt(0);
  const operator = first in OPERATOR_PATTERN && first !== '' ? first : '';
  const variables = expression.slice(operator.length).split(',');
  if (!variables.every((v) => VARIABLE.test(v))) return undefined;
  return OPERATOR_PATTERN[operator];
}

function escapeLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Templates change only when an upstream's list changes, so compiled matchers are kept across
// calls. The bound stops a churning upstream from growing it forever; clearing is safe because
// compiling is deterministic.
const CACHE_LIMIT = 1024;
const cache = new Map<string, RegExp | null>();

export function matchesUriTemplate(template: string, uri: string): boolean {
  let compiled = cache.get(template);
  if (compiled === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    compiled = compileUriTemplate(template) ?? null;
    cache.set(template, compiled);
  }
  return compiled !== null && compiled.test(uri);
}

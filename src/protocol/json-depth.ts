// How deep a parsed JSON value nests, checked without recursion: JSON.parse takes any depth
// (V8's parser is iterative), but every recursive walk after it (canonical JSON for digests
// and the hash chain, redaction, schema validation, JSON.stringify itself) has a stack, and a
// body of a few MB can nest millions of levels. The gateway refuses what is deeper than its
// limit (limits.maxJsonDepth) before anything else walks it. Pure.

/** True when `value` nests objects and arrays more than `max` levels: `{}` and `[]` are
 * level 1, `{"a":[]}` is level 2; strings, numbers, booleans and null add none. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max < 1) return true;
  // Explicit stacks: a walk that recursed would overflow on exactly the input it looks for.
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child !== 'object' || child === null) continue;
        if (depth >= max) return true;
        nodes.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in node) {
      const child: unknown = (node as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      if (depth >= max) return true;
      nodes.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

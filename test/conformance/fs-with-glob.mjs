// node:fs with globSync for Node 20 (Node 22 added fs.globSync). Enough of it for the
// conformance suite: relative patterns with `*`, `?` and `**` segments, options.cwd,
// results as paths relative to cwd. Where Node has its own, that one is used.
import fs from 'node:fs';
import { join, relative, sep } from 'node:path';

export * from 'node:fs';
export default fs;

function segmentPattern(segment) {
  const body = segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

function patternRegExp(pattern) {
  let source = '';
  const parts = pattern.split('/');
  parts.forEach((s, i) => {
    const last = i === parts.length - 1;
    if (s === '**') source += last ? '.*' : '(?:[^/]+/)*';
    else source += segmentPattern(s).source.slice(1, -1) + (last ? '' : '/');
  });
  return new RegExp(`^${source}$`);
}

function walk(root, dir, out) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = join(dir, e.name);
    out.push(relative(root, full).split(sep).join('/'));
    if (e.isDirectory()) walk(root, full, out);
  }
}

function globSyncShim(patterns, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const list = Array.isArray(patterns) ? patterns : [patterns];
  const all = [];
  walk(cwd, cwd, all);
  const res = list.map(patternRegExp);
  return all.filter((p) => res.some((r) => r.test(p)));
}

export const globSync = fs.globSync ?? globSyncShim;

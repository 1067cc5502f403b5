// Which limits hold for one tool: field by field, the first tool rule (glob over the exposed
// name) that sets the field, else the first upstream rule that does, else the gateway-wide
// settings. Compiled once from the frozen config; answers are memoised per tool, since the
// same few tools are called over and over.
import { LRUCache } from 'lru-cache';
import { compileGlob } from '../policy/glob.ts';
import type { ResultShapingConfig, ShapingLimits, ShapingRule } from './shaping-config.ts';

const MAX_MEMO = 10_000;

export type LimitsFor = (tool: string, upstream: string) => ShapingLimits;

export function compileLimits(config: Pick<ResultShapingConfig, 'defaults' | 'rules'>): LimitsFor {
  const toolRules = config.rules.filter((r) => r.tool !== undefined).map((r) => ({ rule: r, glob: compileGlob(r.tool!) }));
  const upstreamRules = config.rules.filter((r) => r.upstream !== undefined);
  const memo = new LRUCache<string, ShapingLimits>({ max: MAX_MEMO });
  return (tool, upstream) => {
    const key = `${upstream}\u0000${tool}`;
    const hit = memo.get(key);
    if (hit) return hit;
    const matching: ShapingRule[] = [...toolRules.filter((t) => t.glob.matches(tool)).map((t) => t.rule), ...upstreamRules.filter((r) => r.upstream === upstream)];
    const pick = <K extends keyof ShapingLimits>(field: K, ruleField: keyof ShapingRule): ShapingLimits[K] =>
      (matching.find((r) => r[ruleField] !== undefined)?.[ruleField] as ShapingLimits[K] | undefined) ?? config.defaults[field];
    const limits: ShapingLimits = Object.freeze({
      maxBytes: pick('maxBytes', 'maxBytes'),
      strategy: pick('strategy', 'strategy'),
      structured: pick('structured', 'structured'),
      maxMediaBytes: pick('maxMediaBytes', 'maxMediaBytes'),
    });
    memo.set(key, limits);
    return limits;
  };
}

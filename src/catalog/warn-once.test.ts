import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../telemetry/logger.ts';
import { MAX_WARN_SCOPES, WarnOnce } from './warn-once.ts';

describe('WarnOnce', () => {
  it('logs a condition when it appears, not again while it lasts, and again when it comes back', () => {
    const { logger, lines } = createMemoryLogger();
    const warnings = new WarnOnce(logger);
    const a = { tool: 'a' };
    const b = { tool: 'b' };
    warnings.report('s', 'renamed', [a]);
    warnings.report('s', 'renamed', [a]);
    warnings.report('s', 'renamed', [a, b]);
    warnings.report('s', 'renamed', []);
    warnings.report('s', 'renamed', [a]);
    expect(lines.map((l) => [l.level, l.msg, l.tool])).toEqual([
      ['warn', 'renamed', 'a'],
      ['warn', 'renamed', 'b'],
      ['warn', 'renamed', 'a'],
    ]);
  });

  it('keeps scopes apart', () => {
    const { logger, lines } = createMemoryLogger();
    const warnings = new WarnOnce(logger);
    warnings.report('tools', 'renamed', [{ name: 'x' }]);
    warnings.report('prompts', 'renamed', [{ name: 'x' }]);
    expect(lines).toHaveLength(2);
  });

  it('remembers a bounded number of scopes: one per caller cannot grow without end', () => {
    const { logger, lines } = createMemoryLogger();
    const warnings = new WarnOnce(logger);
    warnings.report('caller-0', 'renamed', [{ name: 'x' }]);
    for (let i = 1; i <= MAX_WARN_SCOPES; i++) warnings.report(`caller-${i}`, 'renamed', [{ name: 'x' }]);
    const logged = lines.length;
    // The oldest scope was let go of, so its condition counts as new again.
    warnings.report('caller-0', 'renamed', [{ name: 'x' }]);
    expect(lines.length).toBe(logged + 1);
  });
});

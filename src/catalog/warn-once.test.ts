import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../logger.ts';
import { WarnOnce } from './warn-once.ts';

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
});

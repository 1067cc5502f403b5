import { describe, expect, it } from 'vitest';
import { AnswerBudget } from './answer-budget.ts';

describe('AnswerBudget', () => {
  it('shares one byte budget between answers, each giving back what it held', () => {
    const budget = new AnswerBudget(100);
    const a = budget.meter();
    const b = budget.meter();
    expect(a.charge(60)).toBe(true);
    expect(b.charge(30)).toBe(true);
    // B's next chunk does not fit beside A: refused, and B keeps only what it had.
    expect(b.charge(20)).toBe(false);
    expect(budget.bytes()).toBe(90);
    a.release();
    expect(budget.bytes()).toBe(30);
    expect(b.charge(20)).toBe(true);
    b.release();
    b.release();
    expect(budget.bytes()).toBe(0);
  });
});

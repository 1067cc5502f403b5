import { describe, expect, it } from 'vitest';
import { answerIdOf } from './answer-id.ts';

const of = (head: string, tail = head) => answerIdOf({ head, tail });

describe('answerIdOf', () => {
  it('reads an id written first, after jsonrpc or before it', () => {
    expect(of('{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xxx', 'xxx"}]}}')).toBe(7);
    expect(of('{ "id" : 12 , "jsonrpc":"2.0","result":"xxx', 'xxx"}')).toBe(12);
  });

  it('reads an id written last, before or after jsonrpc', () => {
    expect(of('{"result":{"content":[{"text":"xxx', 'xxx"}]},"jsonrpc":"2.0","id":9}')).toBe(9);
    expect(of('{"result":"xxx', 'xxx","id":9,"jsonrpc":"2.0"}\r')).toBe(9);
  });

  it('does not take the id of a nested object for the message id', () => {
    expect(of('{"result":{"id":3,"x":"xxx', 'xxx","item":{"id":4}}}')).toBeUndefined();
    expect(of('{"result":"xxx', 'xxx","id":"abc"}')).toBeUndefined();
  });
});

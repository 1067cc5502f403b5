import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTaskIds } from './task-ids.ts';

describe('task ids', () => {
  const ids = createTaskIds(randomBytes(32));
  const ref = { upstream: 'up', taskId: 'a1b2-c3' };

  it('gives one task one id, and opens it for its creator only', () => {
    const id = ids.mint(ref, 'alice');
    expect(ids.mint(ref, 'alice')).toBe(id);
    expect(ids.open(id, 'alice')).toEqual(ref);
    expect(ids.open(id, 'bob')).toBeUndefined();
    expect(ids.mint(ref, 'bob')).not.toBe(id);
  });

  it('refuses an id changed in any part, another key, and what is not an id at all', () => {
    const id = ids.mint(ref, 'alice');
    const [prefix, upstream, task, mac] = id.split('.') as [string, string, string, string];
    const other = Buffer.from('other', 'utf8').toString('base64url');
    expect(ids.open([prefix, other, task, mac].join('.'), 'alice')).toBeUndefined();
    expect(ids.open([prefix, upstream, other, mac].join('.'), 'alice')).toBeUndefined();
    expect(ids.open([prefix, upstream, task, `${mac.slice(0, -2)}AA`].join('.'), 'alice')).toBeUndefined();
    expect(createTaskIds(randomBytes(32)).open(id, 'alice')).toBeUndefined();
    for (const bad of [undefined, 42, '', 'a1b2-c3', 'gt1.', 'gt1.a.b', 'gt1.a.b.c.d', `gt1.${'A'.repeat(3000)}.b.c`, 'gt1.a!.b.c']) expect(ids.open(bad, 'alice')).toBeUndefined();
  });

  it('keeps upstream names and task ids of any characters header-safe', () => {
    const id = ids.mint({ upstream: 'weird name/ü', taskId: 'id with spaces\u0000and NUL' }, 'alice');
    expect(id).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(ids.open(id, 'alice')).toEqual({ upstream: 'weird name/ü', taskId: 'id with spaces\u0000and NUL' });
  });
});

import { describe, expect, it } from 'vitest';
import { ok } from '../protocol/result.ts';
import { INPUT_NOT_HERE, modernCreated, modernDetailed } from './task-bridge.ts';

const CORE = { taskId: 'up-1', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:01Z', ttl: 60_000, pollInterval: 50 };
const QUESTION = { key: 'q1-1', method: 'elicitation/create' as const, params: { message: 'Which name?', requestedSchema: { type: 'object' }, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'up-1' } } } };

describe('core tasks shown in the extension shapes', () => {
  it('flattens CreateTaskResult and renames ttl and pollInterval', () => {
    expect(modernCreated({ task: CORE }, 'gt1.x')).toEqual({ resultType: 'task', taskId: 'gt1.x', status: 'working', createdAt: CORE.createdAt, lastUpdatedAt: CORE.lastUpdatedAt, ttlMs: 60_000, pollIntervalMs: 50 });
  });

  it('shows a task waiting for input with its questions as inputRequests, without their _meta', () => {
    const shown = modernDetailed({ ...CORE, status: 'input_required' }, 'gt1.x', undefined, [QUESTION]);
    expect(shown).toMatchObject({ status: 'input_required', inputRequests: { 'q1-1': { method: 'elicitation/create', params: { message: 'Which name?', requestedSchema: { type: 'object' } } } } });
    expect(JSON.stringify(shown)).not.toContain('related-task');
  });

  it('shows a task waiting for input whose question has not reached this replica as working, saying so', () => {
    for (const asked of [undefined, []]) {
      const shown = modernDetailed({ ...CORE, status: 'input_required', statusMessage: 'upstream words' }, 'gt1.x', undefined, asked);
      expect(shown).toMatchObject({ status: 'working', statusMessage: INPUT_NOT_HERE });
      expect(shown.inputRequests).toBeUndefined();
    }
  });

  it('inlines the result of an ended task, without the core related-task key', () => {
    const final = ok({ content: [], _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'up-1' }, kept: 1 } });
    expect(modernDetailed({ ...CORE, status: 'completed' }, 'gt1.x', final)).toMatchObject({ status: 'completed', result: { content: [], _meta: { kept: 1 } } });
    expect(modernDetailed({ ...CORE, status: 'failed', statusMessage: 'broke' }, 'gt1.x', final)).toMatchObject({ status: 'failed', error: { code: -32603, message: 'broke' } });
  });
});

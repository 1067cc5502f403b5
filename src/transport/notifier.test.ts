import { describe, expect, it } from 'vitest';
import { META_SUBSCRIPTION_ID } from '../protocol/meta-keys.ts';
import { LIST_CHANGED_JSON, LIST_CHANGED_METHOD, taggedListChanged, type ChangeKind } from './notifier.ts';

const KINDS: readonly ChangeKind[] = ['tools', 'prompts', 'resources'];

describe('list_changed notifications serialised once', () => {
  it('gives each kind the bytes of its whole message, as every legacy GET stream sends it', () => {
    for (const kind of KINDS) expect(LIST_CHANGED_JSON[kind]).toBe(JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED_METHOD[kind] }));
  });

  it('tags a listen stream\'s copy with its subscription id exactly as serialising the message would', () => {
    const ids: (string | number)[] = ['listen-1', 7, -0.5, 'quote " back\\slash \u2028 \u00e9 \ud83d\ude00', ''];
    for (const kind of KINDS) {
      for (const id of ids) {
        const meta = { [META_SUBSCRIPTION_ID]: id };
        const text = taggedListChanged(kind, JSON.stringify(meta));
        expect(text).toBe(JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED_METHOD[kind], params: { _meta: meta } }));
        expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', method: LIST_CHANGED_METHOD[kind], params: { _meta: meta } });
      }
    }
  });
});

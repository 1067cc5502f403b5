// resources/read of a kept result (gatehouse://results/<id>?offset=&length=): one page of
// the full copy, for its owner only. Text is paged by UTF-8 byte offsets moved to character
// boundaries (utf8-slice.ts), `pageBytes` at a time unless the caller names a length; a blob
// comes whole unless a range is named. The page's place in the whole is in the result's
// `_meta` under PAGE_META_KEY, with the uri of the next page while there is one.
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { unknownError } from '../policy/enforcer.ts';
import { pageUri, type KeptResultAddress } from './kept-result-uri.ts';
import type { ResultStore } from './result-store.ts';
import { utf8Slice } from './utf8-slice.ts';

export const PAGE_META_KEY = 'io.gatehouse/page';
const UTF8_MAX_CHAR_BYTES = 4;

export function readKeptResult(store: ResultStore, owner: string, uri: string, addr: KeptResultAddress, pageBytes: number): Result<JsonObject, GatewayError> {
  const part = store.get(owner, addr.id);
  if (!part) return err(unknownError({ kind: 'resource', name: uri }));
  const total = part.data.length;
  const offset = addr.offset ?? 0;
  if (offset > total || (offset === total && total > 0)) return err({ kind: 'invalid_params', message: `offset ${offset} is past the end of this result (${total} bytes)`, data: { uri } });
  const wanted = addr.length ?? (part.encoding === 'text' ? pageBytes : total - offset);
  let start = offset;
  let end = Math.min(total, offset + wanted);
  let item: JsonObject;
  if (part.encoding === 'text') {
    let slice = utf8Slice(part.data, offset, end);
    // A length shorter than the character at the offset would give an empty page forever.
    if (slice.end === slice.start && slice.start < total) slice = utf8Slice(part.data, offset, offset + UTF8_MAX_CHAR_BYTES);
    start = slice.start;
    end = slice.end;
    item = { uri, mimeType: part.mimeType, text: slice.text };
  } else {
    item = { uri, mimeType: part.mimeType, blob: part.data.subarray(start, end).toString('base64') };
  }
  const page: JsonObject = { offset: start, length: end - start, total };
  if (end < total) page.next = pageUri(addr.id, end, wanted);
  return ok({ contents: [item], _meta: { [PAGE_META_KEY]: page } });
}

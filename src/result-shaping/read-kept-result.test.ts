import { describe, expect, it } from 'vitest';
import { keptResultUri, pageUri, parseKeptResultUri } from './kept-result-uri.ts';
import { PAGE_META_KEY, readKeptResult } from './read-kept-result.ts';
import { createResultStore } from './result-store.ts';

const ID = 'abcdefghijklmnopqrstuv';

describe('kept-result uris', () => {
  it('parses the id and page of the uris the gateway issues', () => {
    expect(parseKeptResultUri(keptResultUri(ID))).toEqual({ id: ID });
    expect(parseKeptResultUri(pageUri(ID, 10, 20))).toEqual({ id: ID, offset: 10, length: 20 });
    expect(parseKeptResultUri(`GATEHOUSE://results/${ID}?length=5`)).toEqual({ id: ID, length: 5 });
  });

  it('leaves other uris to routing and explains bad page parameters', () => {
    expect(parseKeptResultUri('gatehouse://results/short')).toBeUndefined();
    expect(parseKeptResultUri('gatehouse://github/x')).toBeUndefined();
    expect(parseKeptResultUri('file:///x')).toBeUndefined();
    expect(parseKeptResultUri(`${keptResultUri(ID)}?offset=-1`)).toBe('offset must be a non-negative integer of bytes');
    expect(parseKeptResultUri(`${keptResultUri(ID)}?page=2`)).toMatch(/unknown parameter "page"/);
  });
});

describe('readKeptResult', () => {
  const store = createResultStore({ ttlMs: 60_000, maxBytes: 1 << 20, maxEntryBytes: 1 << 20 });
  const text = `${'é'.repeat(10)}${'z'.repeat(30)}`; // 20 + 30 bytes
  const id = store.put('me', { mimeType: 'text/plain', encoding: 'text', data: Buffer.from(text) })!;
  const blobId = store.put('me', { mimeType: 'image/png', encoding: 'blob', data: Buffer.from([1, 2, 3, 4, 5]) })!;

  it('pages text by bytes, on character boundaries, until the whole text is read', () => {
    let uri = keptResultUri(id);
    let read = '';
    for (let i = 0; i < 20 && uri; i++) {
      const addr = parseKeptResultUri(uri) as { id: string };
      const r = readKeptResult(store, 'me', uri, addr, 7);
      if (!r.ok) throw new Error(r.error.kind);
      const contents = r.value.contents as { text: string; uri: string }[];
      expect(contents[0]!.uri).toBe(uri);
      expect(contents[0]!.text).not.toContain('\uFFFD');
      read += contents[0]!.text;
      const page = (r.value._meta as Record<string, { next?: string; total: number }>)[PAGE_META_KEY]!;
      expect(page.total).toBe(50);
      uri = page.next as string;
    }
    expect(read).toBe(text);
  });

  it('reads a blob whole unless a range is named', () => {
    const whole = readKeptResult(store, 'me', keptResultUri(blobId), { id: blobId }, 2);
    expect(whole.ok && (whole.value.contents as { blob: string }[])[0]!.blob).toBe(Buffer.from([1, 2, 3, 4, 5]).toString('base64'));
    const part = readKeptResult(store, 'me', 'u', { id: blobId, offset: 1, length: 2 }, 2);
    expect(part.ok && (part.value.contents as { blob: string }[])[0]!.blob).toBe(Buffer.from([2, 3]).toString('base64'));
  });

  it('answers another principal exactly as an unknown resource, and refuses an offset past the end', () => {
    const other = readKeptResult(store, 'someone-else', keptResultUri(id), { id }, 7);
    expect(other).toEqual({ ok: false, error: { kind: 'invalid_params', message: 'Resource not found', data: { uri: keptResultUri(id) } } });
    const past = readKeptResult(store, 'me', 'u', { id, offset: 51 }, 7);
    expect(!past.ok && past.error.kind === 'invalid_params' && past.error.message).toMatch(/past the end of this result \(50 bytes\)/);
  });
});

// The URI of a kept result: gatehouse://results/<id>, with an optional page,
// `?offset=<bytes>&length=<bytes>`. The gatehouse: scheme is the gateway's own
// (catalog/gatehouse-uri.ts); an upstream named "results" would share the authority, so
// resources/read looks a uri up here first and, when no kept result of the caller's has the
// id, routes it as before: a kept result shadows nothing that exists.
import { GATEHOUSE_SCHEME } from '../catalog/gatehouse-uri.ts';

export const RESULTS_URI_PREFIX = `${GATEHOUSE_SCHEME}//results/`;

/** 16 random bytes, base64url: what result-store.ts issues. */
const ID = /^[A-Za-z0-9_-]{22}$/;

export interface KeptResultAddress {
  id: string;
  offset?: number;
  length?: number;
}

export function keptResultUri(id: string): string {
  return `${RESULTS_URI_PREFIX}${id}`;
}

export function pageUri(id: string, offset: number, length: number): string {
  return `${keptResultUri(id)}?offset=${offset}&length=${length}`;
}

/** The id and page a uri names; undefined when it is not a kept-result uri; a string when its
 * page parameters are malformed (the message for the caller). */
export function parseKeptResultUri(uri: string): KeptResultAddress | string | undefined {
  if (uri.slice(0, RESULTS_URI_PREFIX.length).toLowerCase() !== RESULTS_URI_PREFIX) return undefined;
  const rest = uri.slice(RESULTS_URI_PREFIX.length);
  const q = rest.indexOf('?');
  const id = q === -1 ? rest : rest.slice(0, q);
  if (!ID.test(id)) return undefined;
  if (q === -1) return { id };
  const out: KeptResultAddress = { id };
  for (const pair of rest.slice(q + 1).split('&')) {
    if (pair === '') continue;
    const [key, value = ''] = pair.split('=', 2) as [string, string?];
    if (key !== 'offset' && key !== 'length') return `unknown parameter "${key.slice(0, 40)}" (use offset and length)`;
    if (!/^[0-9]{1,15}$/.test(value)) return `${key} must be a non-negative integer of bytes`;
    out[key] = Number(value);
  }
  return out;
}

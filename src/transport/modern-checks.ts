// The inbound checks of a 2026-07-28 request, in the order of digest b.4: version header
// present (-32020) -> version supported (-32022) -> required _meta keys (-32602/400) ->
// headers equal the body (-32020). The method check (-32601/404) follows in the endpoint.
import { checkStandardHeaders, type HeaderLookup } from '../headers/param-headers.ts';
import type { GatewayError } from '../jsonrpc/errors.ts';
import type { JsonObject, JsonRpcRequest } from '../jsonrpc/message.ts';
import { isJsonObject } from '../jsonrpc/message.ts';
import { err, ok, type Result } from '../jsonrpc/result.ts';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from '../upstream/upstream.ts';

export interface ModernMeta {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
}

export function checkModernRequest(
  msg: JsonRpcRequest,
  headers: HeaderLookup,
  modernVersions: readonly string[],
  allVersions: readonly string[],
): Result<ModernMeta, GatewayError> {
  const headerVersion = headers('mcp-protocol-version');
  if (headerVersion === undefined) return err({ kind: 'header_mismatch', message: 'missing header MCP-Protocol-Version' });
  // A legacy version without a session or initialize: tell the client what we speak
  // (digest §10 #11); the list includes the legacy version so it knows to initialize.
  if (!modernVersions.includes(headerVersion.trim())) {
    return err({ kind: 'unsupported_version', requested: headerVersion.trim(), supported: allVersions });
  }
  const meta = msg.params?._meta;
  if (!isJsonObject(meta)) return err({ kind: 'missing_meta', key: META_PROTOCOL_VERSION });
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string') return err({ kind: 'missing_meta', key: META_PROTOCOL_VERSION });
  const caps = meta[META_CLIENT_CAPABILITIES];
  if (!isJsonObject(caps)) return err({ kind: 'missing_meta', key: META_CLIENT_CAPABILITIES });
  if (!modernVersions.includes(version)) return err({ kind: 'unsupported_version', requested: version, supported: allVersions });
  const params = msg.params ?? {};
  const name = msg.method === 'resources/read' ? params.uri : params.name;
  const checked = checkStandardHeaders(
    { protocolVersion: version, method: msg.method, name: typeof name === 'string' ? name : undefined },
    headers,
  );
  if (!checked.ok) return err({ kind: 'header_mismatch', message: checked.error });
  const info = meta[META_CLIENT_INFO];
  return ok({ protocolVersion: version, clientCapabilities: caps, ...(isJsonObject(info) ? { clientInfo: info } : {}) });
}

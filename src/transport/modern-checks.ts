// The inbound checks of a 2026-07-28 request, in the order of MCP 2026-07-28, basic/transports/streamable-http (request headers): version header
// present (-32020) -> version supported (-32022) -> required _meta keys (-32602/400) ->
// headers equal the body (-32020). The method check (-32601/404) follows in the endpoint.
// The body's version is judged only by comparing it with the header: a body that names
// another version than a supported header is a mismatch (-32020), whether or not Gatehouse
// speaks the body's version, as the SDK servers answer it.
// The optional reserved keys are typed too (RequestMetaObject in the 2026-07-28 schema): a
// malformed one is -32602 here (MCP 2026-07-28, basic/index (error codes) names "bad logLevel"), not something each upstream era
// would judge differently (a legacy upstream never sees them, a modern one rejects them).
import { checkStandardHeaders, mcpNameOf, type HeaderLookup } from '../headers/param-headers.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcRequest } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { isLoggingLevel, LOG_LEVELS } from '../protocol/log-levels.ts';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from '../protocol/meta-keys.ts';

export interface ModernMeta {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo?: JsonObject;
}


/** The optional typed keys of RequestMetaObject: the problem with the first bad one. */
function badOptionalMeta(meta: JsonObject): GatewayError | undefined {
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && !(isJsonObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) {
    return invalidMeta(META_CLIENT_INFO, 'must be an Implementation object with string name and version');
  }
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && !isLoggingLevel(level)) {
    return invalidMeta(META_LOG_LEVEL, `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && !(typeof token === 'number' && Number.isInteger(token))) {
    return invalidMeta('progressToken', 'must be a string or an integer');
  }
  return undefined;
}

function invalidMeta(key: string, problem: string): GatewayError {
  return { kind: 'invalid_params', message: `Invalid params: _meta key "${key}" ${problem}`, data: { key } };
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
  // (a case the spec leaves open: we answer -32022); the list includes the legacy version so it
  // knows to initialize.
  if (!modernVersions.includes(headerVersion.trim())) {
    return err({ kind: 'unsupported_version', requested: headerVersion.trim(), supported: allVersions });
  }
  const meta = msg.params?._meta;
  if (!isJsonObject(meta)) return err({ kind: 'missing_meta', key: META_PROTOCOL_VERSION });
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string') return err({ kind: 'missing_meta', key: META_PROTOCOL_VERSION });
  const caps = meta[META_CLIENT_CAPABILITIES];
  if (!isJsonObject(caps)) return err({ kind: 'missing_meta', key: META_CLIENT_CAPABILITIES });
  const bad = badOptionalMeta(meta);
  if (bad) return err(bad);
  const params = msg.params ?? {};
  const checked = checkStandardHeaders(
    { protocolVersion: version, method: msg.method, name: mcpNameOf(msg.method, params) },
    headers,
  );
  if (!checked.ok) return err({ kind: 'header_mismatch', message: checked.error });
  const info = meta[META_CLIENT_INFO];
  return ok({ protocolVersion: version, clientCapabilities: caps, ...(isJsonObject(info) ? { clientInfo: info } : {}) });
}

// Builds and checks the request metadata headers of a modern (2026-07-28) POST: the standard
// ones (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, MCP 2026-07-28, basic/transports/streamable-http (request headers)) and the
// `Mcp-Param-*` mirrors of annotated arguments (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters). Pure: header lookup is passed
// in as a function, and errors are returned as messages that the caller wraps as
// `{ kind: 'header_mismatch' }` (400 + -32020). Header count/size limits, forwarding of
// unrecognised `Mcp-Param-*` headers and the choice of era are left to the transport.
import { type Result, ok, err } from '../protocol/result.ts';
import { type JsonObject, type JsonValue, isJsonObject } from '../protocol/message.ts';
import { type HeaderParam } from './annotations.ts';
import { decodeHeaderValue, encodeHeaderValue, parseLiteralHeaderValue } from './header-value.ts';

export const MCP_PROTOCOL_VERSION_HEADER = 'MCP-Protocol-Version';
export const MCP_METHOD_HEADER = 'Mcp-Method';
export const MCP_NAME_HEADER = 'Mcp-Name';
export const MCP_PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** Methods whose body name must be mirrored in `Mcp-Name`, and the params field it comes from
 * (MCP 2026-07-28, basic/transports/streamable-http (request headers); the tasks extension
 * io.modelcontextprotocol/tasks adds `params.taskId` of tasks/get, tasks/update, tasks/cancel). */
const NAME_FIELD: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);
export const NAME_BEARING_METHODS: ReadonlySet<string> = new Set(NAME_FIELD.keys());

/** The value `Mcp-Name` mirrors for `method`, when it has one and the body carries it as a string. */
export function mcpNameOf(method: string, params: { readonly [k: string]: unknown } | undefined): string | undefined {
  const field = NAME_FIELD.get(method);
  const v = field === undefined || params === undefined ? undefined : params[field];
  return typeof v === 'string' ? v : undefined;
}

/** Case-insensitive header lookup (RFC 9110 §5.1); returns undefined when absent. */
export type HeaderLookup = (name: string) => string | undefined;

export type HeaderParamValue = string | number | boolean;

export interface StandardHeaderSource {
  /** `params._meta["io.modelcontextprotocol/protocolVersion"]` from the body. */
  readonly protocolVersion: string;
  readonly method: string;
  /** `params.name` (tools/call, prompts/get) or `params.uri` (resources/read); else undefined. */
  readonly name?: string | undefined;
}

// Values echoed in error messages come from the client; keep messages bounded.
const MAX_QUOTED = 200;

function quote(v: string): string {
  return `'${v.length > MAX_QUOTED ? `${v.slice(0, MAX_QUOTED)}…` : v}'`;
}

export function paramHeaderName(param: HeaderParam): string {
  return MCP_PARAM_HEADER_PREFIX + param.name;
}

function describePath(param: HeaderParam): string {
  return param.path.join('.');
}

/** The argument at the param's `properties` path; undefined when any step is missing. */
function readArgument(args: JsonObject | undefined, path: readonly string[]): JsonValue | undefined {
  let node: JsonValue | undefined = args;
  for (const key of path) {
    // Own properties only, so `__proto__` or `constructor` never reach the prototype.
    if (!isJsonObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** Checks a present, non-null argument against the annotated type (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters rule 4). */
function typedArgument(param: HeaderParam, value: JsonValue): Result<HeaderParamValue, string> {
  const where = `argument ${describePath(param)} for ${paramHeaderName(param)}`;
  switch (param.type) {
    case 'string':
      return typeof value === 'string' ? ok(value) : err(`${where} must be a string, got ${JSON.stringify(value)}`);
    case 'boolean':
      return typeof value === 'boolean' ? ok(value) : err(`${where} must be a boolean, got ${JSON.stringify(value)}`);
    case 'integer':
      // Integers must lie in the IEEE-754 safe range; MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters suggests refusing the rest.
      return typeof value === 'number' && Number.isSafeInteger(value)
        ? ok(value)
        : err(`${where} must be an integer within ±(2^53-1), got ${JSON.stringify(value)}`);
  }
}

/**
 * The typed values of every annotated argument present in the body, keyed by header name.
 * For calls whose values came without headers (legacy clients, stdio), so policy and audit
 * see the same record whatever the transport.
 */
export function extractParamValues(params: readonly HeaderParam[], args: JsonObject | undefined): Result<Record<string, HeaderParamValue>, string> {
  const values: Record<string, HeaderParamValue> = {};
  for (const param of params) {
    const arg = readArgument(args, param.path);
    if (arg === undefined || arg === null) continue;
    const typed = typedArgument(param, arg);
    if (!typed.ok) return typed;
    values[paramHeaderName(param)] = typed.value;
  }
  return ok(values);
}

/**
 * Computes the `Mcp-Param-*` headers for an outbound call from the tool's scanned
 * annotations (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters, "Building the request"). Absent or null arguments get no header.
 */
export function buildParamHeaders(params: readonly HeaderParam[], args: JsonObject | undefined): Result<Record<string, string>, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    const raw = readArgument(args, param.path);
    if (raw === undefined || raw === null) continue;
    const value = typedArgument(param, raw);
    if (!value.ok) return value;
    headers[paramHeaderName(param)] = encodeHeaderValue(value.value);
  }
  return ok(headers);
}

// A decimal number with an optional all-digit fraction; exponents are not accepted.
const DECIMAL = /^([+-]?)([0-9]+)(?:\.([0-9]+))?$/;

/**
 * Integers are compared numerically (MCP 2026-07-28, basic/transports/streamable-http (request headers) rule 2: `42` equals `42.0`; leading zeros too).
 * Done on the digit strings rather than via Number(), which would round past 2^53 and make
 * e.g. "9007199254740993" equal 9007199254740992.
 */
function integerTextEquals(text: string, body: number): Result<boolean, string> {
  const m = DECIMAL.exec(text);
  if (m === null) return err('is not a decimal integer');
  const [, sign = '', whole = '', fraction = ''] = m;
  if (/[1-9]/.test(fraction)) return ok(false);
  const digits = whole.replace(/^0+(?=[0-9])/, '');
  const negative = sign === '-' && digits !== '0';
  return ok(digits === String(Math.abs(body)) && negative === body < 0);
}

function headerMatches(param: HeaderParam, decoded: string, body: HeaderParamValue): Result<boolean, string> {
  if (typeof body === 'number') return integerTextEquals(decoded, body);
  if (typeof body === 'boolean') {
    // Booleans travel as exactly `true` / `false` (MCP 2026-07-28, basic/transports/streamable-http (header value encoding) rule 1); `TRUE` or `1` is no match.
    if (decoded !== 'true' && decoded !== 'false') return err('is not true or false');
    return ok(decoded === String(body));
  }
  return ok(decoded === body);
}

/**
 * Server-side check of `Mcp-Param-*` against the body (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters, "Server side"):
 * a present, non-null argument needs its header with an equal value; an absent or null one
 * must come without it. Returns the typed values keyed by header name (`Mcp-Param-Region`),
 * for the call record used by policy and audit. Headers for names the schema does not
 * annotate are not looked at.
 */
export function checkParamHeaders(
  params: readonly HeaderParam[],
  args: JsonObject | undefined,
  headers: HeaderLookup,
): Result<Record<string, HeaderParamValue>, string> {
  const values: Record<string, HeaderParamValue> = {};
  for (const param of params) {
    const header = paramHeaderName(param);
    const raw = headers(header);
    const arg = readArgument(args, param.path);
    if (arg === undefined || arg === null) {
      if (raw !== undefined) return err(`${header} header is present but argument ${describePath(param)} is absent or null`);
      continue;
    }
    if (raw === undefined) return err(`missing header ${header} for argument ${describePath(param)}`);
    const body = typedArgument(param, arg);
    if (!body.ok) return body;
    const decoded = decodeHeaderValue(raw);
    if (!decoded.ok) return err(`${header} header: ${decoded.error}`);
    const same = headerMatches(param, decoded.value, body.value);
    if (!same.ok) return err(`${header} header value ${quote(decoded.value)} ${same.error}`);
    if (!same.value) {
      return err(`${header} header value ${quote(decoded.value)} does not match body value ${quote(String(body.value))}`);
    }
    values[header] = body.value;
  }
  return ok(values);
}

function checkLiteral(header: string, raw: string | undefined, body: string): Result<void, string> {
  if (raw === undefined) return err(`missing header ${header}`);
  const value = parseLiteralHeaderValue(raw);
  if (!value.ok) return err(`${header} header: ${value.error}`);
  // Values are case-sensitive (MCP 2026-07-28, basic/transports/streamable-http (request headers)): `TOOLS/CALL` is not `tools/call`.
  if (value.value !== body) return err(`${header} header value ${quote(value.value)} does not match body value ${quote(body)}`);
  return ok(undefined);
}

/**
 * Server-side check of the standard headers against the body (MCP 2026-07-28, basic/transports/streamable-http (request headers) "Server validation"):
 * `MCP-Protocol-Version` and `Mcp-Method` always, `Mcp-Name` for the name-bearing methods,
 * decoded from the Base64 sentinel before comparing. `Mcp-Name` on other methods is ignored
 * and must not be routed on (the spec defines no source for it there, so it is ignored). Whether the version is supported is not
 * checked here (that is -32022, the transport's call).
 */
export function checkStandardHeaders(body: StandardHeaderSource, headers: HeaderLookup): Result<void, string> {
  const version = checkLiteral(MCP_PROTOCOL_VERSION_HEADER, headers(MCP_PROTOCOL_VERSION_HEADER), body.protocolVersion);
  if (!version.ok) return version;
  const method = checkLiteral(MCP_METHOD_HEADER, headers(MCP_METHOD_HEADER), body.method);
  if (!method.ok) return method;
  if (!NAME_BEARING_METHODS.has(body.method)) return ok(undefined);

  if (body.name === undefined) return err(`body of ${body.method} has no name to compare with ${MCP_NAME_HEADER}`);
  const raw = headers(MCP_NAME_HEADER);
  if (raw === undefined) return err(`missing header ${MCP_NAME_HEADER}`);
  const name = decodeHeaderValue(raw);
  if (!name.ok) return err(`${MCP_NAME_HEADER} header: ${name.error}`);
  if (name.value !== body.name) {
    return err(`${MCP_NAME_HEADER} header value ${quote(name.value)} does not match body value ${quote(body.name)}`);
  }
  return ok(undefined);
}

/**
 * The standard headers for an outbound modern request (MCP 2026-07-28, basic/transports/streamable-http (request headers)). `Mcp-Name` is added whenever
 * a name is given (the tasks extension also uses it), encoded per MCP 2026-07-28, basic/transports/streamable-http (header value encoding). Method names are
 * protocol identifiers in printable ASCII, so `Mcp-Method` is sent as is.
 */
export function buildStandardHeaders(source: StandardHeaderSource): Record<string, string> {
  const headers: Record<string, string> = {
    [MCP_PROTOCOL_VERSION_HEADER]: source.protocolVersion,
    [MCP_METHOD_HEADER]: source.method,
  };
  if (source.name !== undefined) headers[MCP_NAME_HEADER] = encodeHeaderValue(source.name);
  return headers;
}

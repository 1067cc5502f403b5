// The reserved `_meta` keys of 2026-07-28 requests and results (MCP 2026-07-28, basic/index,
// request _meta). Everything under RESERVED_META_PREFIX belongs to the protocol.
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
export const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

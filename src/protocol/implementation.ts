// Gatehouse's own Implementation object (MCP 2026-07-28, basic/index: serverInfo/clientInfo):
// one version, read from the package manifest, for what it says as a server to clients, as a
// client to upstreams, in traces and in `gatehouse --version`. The manifest is two levels up
// from this file both in src/ and in the compiled dist/.
import { readFileSync } from 'node:fs';
import type { JsonObject } from './message.ts';

export const GATEWAY_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const GATEWAY_SERVER_INFO: JsonObject = Object.freeze({ name: 'gatehouse', title: 'Gatehouse MCP gateway', version: GATEWAY_VERSION });
export const GATEWAY_CLIENT_INFO: JsonObject = Object.freeze({ name: 'gatehouse', version: GATEWAY_VERSION });

// The client-mode scenarios that run at the 2025-11-25 wire (initialize handshake, SDK 1.x
// client); every other one runs at 2026-07-28 with the SDK 2.x client.
export const LEGACY_SCENARIOS: ReadonlySet<string> = new Set(['initialize', 'sse-retry', 'elicitation-sep1034-client-defaults']);

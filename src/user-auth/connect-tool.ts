// The tool a caller without a token sees in a per-user upstream's list: its description says
// what it is for, and calling it, like calling any of that upstream's tools, answers with the
// consent link (consent-answer.ts). Without it, a first user of an upstream nobody has listed
// yet would see no tool of it, and so have nothing to call that could ask for consent.
import type { JsonObject } from '../protocol/message.ts';

export const CONNECT_TOOL = 'gatehouse_connect';

export function connectTool(upstream: string): JsonObject {
  return {
    name: CONNECT_TOOL,
    description: `Connect your own account at "${upstream}" so that its tools run as you. Opens a sign-in link; call again once signed in.`,
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };
}

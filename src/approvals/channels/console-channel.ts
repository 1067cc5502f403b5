// The approvals console as a held channel: pending approvals are listed to signed-in approvers
// (console-routes.ts), so announcing needs nothing; an approver may not approve their own call
// unless the config allows it.
import type { ConsoleConfig } from '../approvals-config.ts';
import type { HeldChannel } from './held-channel.ts';

const ACCEPTED = Promise.resolve({ kind: 'accepted' } as const);

export function createConsoleChannel(config: ConsoleConfig): HeldChannel {
  return {
    name: 'console',
    announce: () => ACCEPTED,
    refuses: (request, decision, by) => (decision === 'approved' && config.allowSelfApproval !== true && by === request.principal.subject ? 'self_approval' : undefined),
  };
}

// Every approval channel Gatehouse knows, by name, in one place: the policy schema's
// `approver` and `fallback` enums come from here (build-held-channels.ts builds the held
// ones a config enables). A new channel is a name here and a HeldChannel implementation.

/** `user`: the calling user, asked in-band; the others hold the call (held-channel.ts). */
export const APPROVAL_CHANNELS = ['user', 'webhook', 'console'] as const;
export type ApprovalChannel = (typeof APPROVAL_CHANNELS)[number];
/** Channels a rule may fall back to: those that need nothing of the client. */
export const FALLBACK_CHANNELS = ['webhook', 'console'] as const satisfies readonly ApprovalChannel[];

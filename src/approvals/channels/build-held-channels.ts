// Builds the held approval channels (held-channel.ts) that a config enables, by name.
import type { Logger } from '../../telemetry/logger.ts';
import type { ApprovalsConfig } from '../approvals-config.ts';
import { createConsoleChannel } from './console-channel.ts';
import type { ChannelNotice, HeldChannel } from './held-channel.ts';
import type { ApprovalChannel } from './registry.ts';
import { createWebhookChannel, type WebhookChannel, type WebhookResult } from './webhook-channel.ts';

function noticeOf(r: WebhookResult): ChannelNotice {
  if (r.kind !== 'decided') return r;
  const d = r.decision;
  return { kind: 'decided', decision: d.decision, ...(d.by !== undefined ? { by: d.by } : {}), ...(d.reason !== undefined ? { reason: d.reason } : {}) };
}

/** The webhook as a held channel: a signed POST announces the request; its response may carry
 * the decision, or the decision comes back later on `POST /approvals/{id}`. */
function webhookHeld(webhook: WebhookChannel): HeldChannel {
  return {
    name: 'webhook',
    announce: async (request, signal) => noticeOf(await webhook.deliver(request, signal)),
    refuses: () => undefined,
  };
}

/** The held channels `config` enables, by name. `webhook` replaces the HTTP delivery (tests). */
export function createHeldChannels(config: ApprovalsConfig, deps: { logger: Logger; now?: () => number; webhook?: WebhookChannel }): ReadonlyMap<ApprovalChannel, HeldChannel> {
  const channels = new Map<ApprovalChannel, HeldChannel>();
  const webhook =
    deps.webhook ??
    (config.webhook !== undefined && config.publicUrl !== undefined
      ? createWebhookChannel(config.webhook, { publicUrl: config.publicUrl, logger: deps.logger, ...(deps.now ? { now: deps.now } : {}) })
      : undefined);
  if (webhook) channels.set('webhook', webhookHeld(webhook));
  if (config.console) channels.set('console', createConsoleChannel(config.console));
  return channels;
}

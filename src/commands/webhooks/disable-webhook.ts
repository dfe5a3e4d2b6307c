import { webhookDecision } from './webhook-state.js';

/** Issued by a delivery that failed, with the facts it read: since when every attempt has failed, and the time now. */
export type DisableWebhook = { readonly failingSince: Date; readonly now: Date };

/** Continuous failure this long disables the endpoint (contract §12). */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * R-HOOK-07: an endpoint every attempt of which has failed for 5 days is disabled. Anything else,
 * a shorter failure, or an endpoint already disabled or deleted, writes nothing: the delivery that
 * asks need not know.
 */
export const disableWebhook = webhookDecision<DisableWebhook>((state, cmd) => {
  if (state.status !== 'enabled') return [];
  if (cmd.now.getTime() - cmd.failingSince.getTime() < DISABLE_AFTER_MS) return [];
  return [
    {
      type: 'WebhookDisabled',
      data: { webhookId: state.webhookId, organizationId: state.organizationId, failingSince: cmd.failingSince.toISOString() },
    },
  ];
});

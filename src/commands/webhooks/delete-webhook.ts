import { isRefusal } from '../refusal.js';
import { ownedBy, webhookDecision } from './webhook-state.js';

export type DeleteWebhook = { readonly organizationId: string; readonly webhookId: string };

/** DELETE /org/v1/webhooks/{id} (R-HOOK-03): nothing is delivered to it any more, enabled or disabled. */
export const deleteWebhook = webhookDecision<DeleteWebhook>((state, cmd) => {
  const webhook = ownedBy(state, cmd.organizationId);
  if (isRefusal(webhook)) return webhook;
  return [{ type: 'WebhookDeleted', data: { webhookId: webhook.webhookId, organizationId: webhook.organizationId } }];
});

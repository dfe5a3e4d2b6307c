import { isRefusal } from '../refusal.js';
import { delivering, ownedBy, webhookDecision } from './webhook-state.js';

/** `eventId`: the id the `webhook.test` event will carry, drawn by the caller. */
export type RequestTest = { readonly organizationId: string; readonly webhookId: string; readonly eventId: string };

/** POST /org/v1/webhooks/{id}/test (R-HOOK-06): a `webhook.test` event for this endpoint only. */
export const requestTest = webhookDecision<RequestTest>((state, cmd) => {
  const webhook = ownedBy(state, cmd.organizationId);
  if (isRefusal(webhook)) return webhook;
  const live = delivering(webhook);
  if (isRefusal(live)) return live;
  return [{ type: 'WebhookTestRequested', data: { webhookId: live.webhookId, organizationId: live.organizationId, eventId: cmd.eventId } }];
});

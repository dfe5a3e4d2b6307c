import { isRefusal, refuse } from '../refusal.js';
import { delivering, ownedBy, webhookDecision } from './webhook-state.js';

/** `delivered`: whether this event was ever to be delivered to this webhook (the delivery log has it), as the service read it. */
export type RequestRetry = {
  readonly organizationId: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly facts: { readonly known: boolean };
};

/** POST /org/v1/webhooks/{id}/deliveries/{eventId}/retry (R-HOOK-06): one more attempt now, whatever the earlier ones did. */
export const requestRetry = webhookDecision<RequestRetry>((state, cmd) => {
  const webhook = ownedBy(state, cmd.organizationId);
  if (isRefusal(webhook)) return webhook;
  if (!cmd.facts.known) return refuse('not_found', 'no delivery of this event to this webhook');
  const live = delivering(webhook);
  if (isRefusal(live)) return live;
  return [
    { type: 'WebhookRetryRequested', data: { webhookId: live.webhookId, organizationId: live.organizationId, eventId: cmd.eventId } },
  ];
});

import type { FeedEventType } from '../../events-feed/catalogue.js';
import { refuse } from '../refusal.js';
import { webhookDecision } from './webhook-state.js';

/** The url and types arrive checked at the edge (webhook-url.ts, the catalogue); the secret sealed. */
export type CreateWebhook = {
  readonly webhookId: string;
  readonly organizationId: string;
  readonly url: string;
  readonly eventTypes: readonly FeedEventType[];
  readonly description: string | null;
  readonly sealedSecret: string;
};

/** POST /org/v1/webhooks (R-HOOK-01): an endpoint of the organization, enabled from the start. */
export const createWebhook = webhookDecision<CreateWebhook>((state, cmd) => {
  if (state.status !== 'none') return refuse('conflict', 'a webhook with this id exists');
  return [
    {
      type: 'WebhookCreated',
      data: {
        webhookId: cmd.webhookId,
        organizationId: cmd.organizationId,
        url: cmd.url,
        eventTypes: [...cmd.eventTypes],
        description: cmd.description,
        sealedSecret: cmd.sealedSecret,
      },
    },
  ];
});

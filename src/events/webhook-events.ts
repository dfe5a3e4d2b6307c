import type { FeedEventType } from '../events-feed/catalogue.js';
import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';

/** Stream: `webhook-<webhookId>`, one endpoint of an organization (contract §12). */
export const webhookStreams = {
  webhook: (webhookId: string): StreamRef<WebhookEvent> => streamOf(webhookEvents, `webhook-${webhookId}`),
};

/**
 * POST /org/v1/webhooks. `sealedSecret` is the signing secret sealed with the webhook's own key in
 * the keyring (base64 of iv | tag | ciphertext): deleting the webhook erases that key, so the log
 * keeps no usable secret (docs/webhooks.md).
 */
export type WebhookCreated = DomainEvent<
  'WebhookCreated',
  {
    webhookId: string;
    organizationId: string;
    url: string;
    eventTypes: FeedEventType[];
    description: string | null;
    sealedSecret: string;
  }
>;
export type WebhookDeleted = DomainEvent<'WebhookDeleted', { webhookId: string; organizationId: string }>;
/** Every delivery attempt since `failingSince` failed, for 5 days or more (R-HOOK-07): nothing is delivered any more. */
export type WebhookDisabled = DomainEvent<'WebhookDisabled', { webhookId: string; organizationId: string; failingSince: string }>;
/** POST /org/v1/webhooks/{id}/test: a `webhook.test` event with this id is delivered to this endpoint only. */
export type WebhookTestRequested = DomainEvent<'WebhookTestRequested', { webhookId: string; organizationId: string; eventId: string }>;
/** POST /org/v1/webhooks/{id}/deliveries/{eventId}/retry: one more attempt, now, outside the schedule. */
export type WebhookRetryRequested = DomainEvent<'WebhookRetryRequested', { webhookId: string; organizationId: string; eventId: string }>;

export type WebhookEvent = WebhookCreated | WebhookDeleted | WebhookDisabled | WebhookTestRequested | WebhookRetryRequested;

export const webhookEvents = eventDecoder<WebhookEvent>('webhook', {
  WebhookCreated: { version: 1 },
  WebhookDeleted: { version: 1 },
  WebhookDisabled: { version: 1 },
  WebhookTestRequested: { version: 1 },
  WebhookRetryRequested: { version: 1 },
});

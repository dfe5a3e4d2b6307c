import { FEED_EVENT_TYPES } from '../../events-feed/catalogue.js';
import { MAX_URL_LENGTH } from '../../webhooks/index.js';
import {
  APPENDS,
  arrayOf,
  asMember,
  exactly,
  JSON_ERRORS,
  jsonAnswer,
  jsonRequest,
  limitQuery,
  memberErrors,
  object,
  pathParam,
  queryParam,
  tagged,
  timestamp,
  uuid,
  type OpenApiObject,
} from './components.js';

const webhookId = pathParam('webhookId', 'A webhook of the token’s organization', uuid());
const eventId = pathParam('eventId', 'The id of an event delivered to it (the `webhook-id` header of its attempts)', uuid());
const eventTypes: OpenApiObject = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...FEED_EVENT_TYPES] },
  description: 'The catalogue’s types it is sent (docs/events.md)',
};

const webhook = exactly({
  webhookId: uuid(),
  url: { type: 'string', format: 'uri', maxLength: MAX_URL_LENGTH },
  eventTypes,
  description: { type: ['string', 'null'], maxLength: 500 },
  enabled: { type: 'boolean', description: 'False once disabled after 5 days of failed deliveries; create it again to resume' },
  createdAt: timestamp(),
});

const delivery = exactly({
  eventId: uuid('The event delivered: its `id`, and the `webhook-id` header'),
  eventType: { type: 'string', description: 'A catalogue type, or webhook.test' },
  attempt: { type: 'integer', minimum: 1, description: 'Which attempt of this event’s delivery it was' },
  status: { type: 'string', enum: ['succeeded', 'failed'], description: 'Succeeded: the endpoint answered 2xx' },
  responseStatus: {
    type: ['integer', 'null'],
    description: 'The status it answered; null when none came (refused, unreachable, timed out)',
  },
  durationMs: { type: 'integer', minimum: 0 },
  at: timestamp('When the attempt was made'),
  error: { type: ['string', 'null'], description: 'Why it failed, in words; null when it succeeded' },
});

const exampleWebhook = {
  webhookId: '8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
  url: 'https://hooks.acme.example/dss',
  eventTypes: ['request.accepted', 'record.updated'],
  description: 'Onboarding',
  enabled: true,
  createdAt: '2026-11-28T08:00:00.000Z',
};
const exampleEventId = '0f6c3c55-08c5-6a3e-2dfa-3b41d3f3ac4e';
const queued = (description: string) =>
  jsonAnswer(description, exactly({ eventId: uuid('The event, to find its attempts in the delivery log') }), { eventId: exampleEventId });

/** Webhooks (contract §12, R-HOOK-*, docs/webhooks.md). */
export const webhookPaths = tagged('Webhooks', {
  '/org/v1/webhooks': {
    post: {
      operationId: 'createWebhook',
      summary: 'Add an endpoint the organization’s events are sent to',
      description:
        'Deliveries follow Standard Webhooks (headers webhook-id, webhook-timestamp, webhook-signature `v1,<HMAC-SHA256>`; ' +
        'the body is the event as GET /org/v1/events answers it). The secret is shown in this answer only. https only, on a ' +
        'public host; no user name or password in the URL.',
      security: asMember('member_manage'),
      requestBody: jsonRequest(
        object(
          {
            url: { type: 'string', minLength: 1, maxLength: MAX_URL_LENGTH, description: 'An https URL on a public host' },
            eventTypes,
            description: { type: ['string', 'null'], maxLength: 500 },
          },
          ['url', 'eventTypes'],
        ),
        { url: exampleWebhook.url, eventTypes: exampleWebhook.eventTypes, description: 'Onboarding' },
      ),
      responses: {
        '201': jsonAnswer(
          'The webhook, and its signing secret: shown this once',
          exactly({
            webhook,
            secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+=*$', description: 'Verify deliveries with it (Standard Webhooks)' },
          }),
          { webhook: exampleWebhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8Y3g1P6vQ8k=' },
        ),
        ...memberErrors(...JSON_ERRORS, ...APPENDS),
      },
    },
    get: {
      operationId: 'listWebhooks',
      summary: 'The organization’s webhooks',
      security: asMember('member_manage'),
      responses: {
        '200': jsonAnswer('Webhooks, the earliest created first', exactly({ webhooks: arrayOf(webhook) }), { webhooks: [exampleWebhook] }),
        ...memberErrors(),
      },
    },
  },
  '/org/v1/webhooks/{webhookId}': {
    delete: {
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook: nothing more is sent to it, and its secret is destroyed',
      security: asMember('member_manage'),
      parameters: [webhookId],
      responses: {
        '200': jsonAnswer('Deleted', exactly({ deleted: { const: true } }), { deleted: true }),
        ...memberErrors(...APPENDS),
      },
    },
  },
  '/org/v1/webhooks/{webhookId}/deliveries': {
    get: {
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log: every attempt, newest first',
      security: asMember('member_manage'),
      parameters: [webhookId, limitQuery(100), queryParam('cursor', 'Where the previous page ended: its nextCursor')],
      responses: {
        '200': jsonAnswer(
          'A page of attempts',
          exactly({
            deliveries: arrayOf(delivery),
            nextCursor: { type: ['string', 'null'], description: 'The next page’s cursor; null on the last page' },
          }),
          {
            deliveries: [
              {
                eventId: exampleEventId,
                eventType: 'request.accepted',
                attempt: 2,
                status: 'succeeded',
                responseStatus: 204,
                durationMs: 84,
                at: '2026-11-28T09:02:12.000Z',
                error: null,
              },
              {
                eventId: exampleEventId,
                eventType: 'request.accepted',
                attempt: 1,
                status: 'failed',
                responseStatus: 503,
                durationMs: 61,
                at: '2026-11-28T09:01:12.000Z',
                error: 'HTTP 503',
              },
            ],
            nextCursor: null,
          },
        ),
        ...memberErrors(),
      },
    },
  },
  '/org/v1/webhooks/{webhookId}/deliveries/{eventId}/retry': {
    post: {
      operationId: 'retryWebhookDelivery',
      summary: 'One more attempt of a delivery, now',
      description: 'Sent again even when it was delivered (a receiver de-duplicates by webhook-id). A disabled webhook answers 409.',
      security: asMember('member_manage'),
      parameters: [webhookId, eventId],
      responses: {
        '202': queued('The attempt is queued'),
        ...memberErrors(409, ...APPENDS),
      },
    },
  },
  '/org/v1/webhooks/{webhookId}/test': {
    post: {
      operationId: 'testWebhook',
      summary: 'Send a webhook.test event to this webhook only',
      description: 'Its body is {id, type: "webhook.test", occurredAt, organizationId}, delivered and retried as any event.',
      security: asMember('member_manage'),
      parameters: [webhookId],
      responses: {
        '202': queued('The test event is queued'),
        ...memberErrors(409, ...APPENDS),
      },
    },
  },
});

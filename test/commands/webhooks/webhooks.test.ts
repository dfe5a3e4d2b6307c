import type { WebhookCreated, WebhookDisabled, WebhookEvent } from '../../../src/events/webhook-events.js';
import { webhookDecider } from '../../../src/commands/webhooks/webhook-decider.js';
import { specOf } from '../../support/given.js';

const org = '0b5e3c1a-6d2f-4a8e-9c47-1f2e3d4c5b6a';
const rival = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const webhookId = '8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d';
const eventId = '0f6c3c55-08c5-6a3e-2dfa-3b41d3f3ac4e';
const created: WebhookCreated = {
  type: 'WebhookCreated',
  data: {
    webhookId,
    organizationId: org,
    url: 'https://hooks.acme.example/dss',
    eventTypes: ['request.accepted'],
    description: null,
    sealedSecret: 'c2VhbGVk',
  },
};
const disabled: WebhookDisabled = {
  type: 'WebhookDisabled',
  data: { webhookId, organizationId: org, failingSince: '2026-11-20T10:00:00.000Z' },
};
const deleted: WebhookEvent = { type: 'WebhookDeleted', data: { webhookId, organizationId: org } };
const DAY = 24 * 60 * 60 * 1000;
const since = new Date('2026-11-20T10:00:00.000Z');

const create = specOf(webhookDecider, 'CreateWebhook');
const remove = specOf(webhookDecider, 'DeleteWebhook');
const disable = specOf(webhookDecider, 'DisableWebhook');
const test = specOf(webhookDecider, 'RequestTest');
const retry = specOf(webhookDecider, 'RequestRetry');

describe('webhooks: create and delete (contract §12, R-HOOK-01, R-HOOK-03)', () => {
  it('creating one records its URL, types and sealed secret, enabled', () => create().when(created.data).then(created));

  it('an existing webhook is not created again', () => create(created).when(created.data).thenRefused('conflict'));

  it('the organization deletes its own webhook, enabled or disabled', () => {
    remove(created).when({ organizationId: org, webhookId }).then(deleted);
    remove(created, disabled).when({ organizationId: org, webhookId }).then(deleted);
  });

  it('another organization’s webhook, an unknown or a deleted one is not found', () => {
    remove(created).when({ organizationId: rival, webhookId }).thenRefused('not_found');
    remove().when({ organizationId: org, webhookId }).thenRefused('not_found');
    remove(created, deleted).when({ organizationId: org, webhookId }).thenRefused('not_found');
  });
});

describe('webhooks: disabled after 5 days of failure (contract §12, R-HOOK-07)', () => {
  it('failing for 5 days disables it, saying since when', () =>
    disable(created)
      .when({ failingSince: since, now: new Date(since.getTime() + 5 * DAY) })
      .then(disabled));

  it('failing for less than 5 days changes nothing', () =>
    disable(created)
      .when({ failingSince: since, now: new Date(since.getTime() + 5 * DAY - 1) })
      .then());

  it('one disabled or deleted already is left as it is', () => {
    disable(created, disabled)
      .when({ failingSince: since, now: new Date(since.getTime() + 9 * DAY) })
      .then();
    disable(created, deleted)
      .when({ failingSince: since, now: new Date(since.getTime() + 9 * DAY) })
      .then();
  });
});

describe('webhooks: a test event and a retry (contract §12, R-HOOK-06)', () => {
  it('a test event is asked for the organization’s own enabled webhook', () =>
    test(created)
      .when({ organizationId: org, webhookId, eventId })
      .then({ type: 'WebhookTestRequested', data: { webhookId, organizationId: org, eventId } }));

  it('a retry is asked for a delivery the log has', () =>
    retry(created)
      .when({ organizationId: org, webhookId, eventId, facts: { known: true } })
      .then({ type: 'WebhookRetryRequested', data: { webhookId, organizationId: org, eventId } }));

  it('a retry of an event never delivered to it is not found', () =>
    retry(created)
      .when({ organizationId: org, webhookId, eventId, facts: { known: false } })
      .thenRefused('not_found'));

  it('a disabled webhook gets neither: it is created again to resume', () => {
    test(created, disabled)
      .when({ organizationId: org, webhookId, eventId })
      .thenRefused('conflict', /create it again/);
    retry(created, disabled)
      .when({ organizationId: org, webhookId, eventId, facts: { known: true } })
      .thenRefused('conflict');
  });

  it('another organization’s webhook is not found, whatever the delivery log says', () => {
    test(created).when({ organizationId: rival, webhookId, eventId }).thenRefused('not_found');
    retry(created)
      .when({ organizationId: rival, webhookId, eventId, facts: { known: true } })
      .thenRefused('not_found');
  });
});

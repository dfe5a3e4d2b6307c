import type { WebhookCreated, WebhookEvent } from '../../src/events/webhook-events.js';
import { webhooksProjector } from '../../src/projections/webhooks/webhooks.js';
import { at, projectorSpecs, uuid } from '../support/projector-spec.js';

const acme = uuid(1);
const globex = uuid(2);
const created = (webhookId: string, organizationId = acme): WebhookCreated => ({
  type: 'WebhookCreated',
  data: {
    webhookId,
    organizationId,
    url: `https://hooks.example/${webhookId.slice(-1)}`,
    eventTypes: ['request.accepted', 'record.updated'],
    description: webhookId === uuid(11) ? 'CRM' : null,
    sealedSecret: 'c2VhbGVk',
  },
});
const disabled: WebhookEvent = {
  type: 'WebhookDisabled',
  data: { webhookId: uuid(11), organizationId: acme, failingSince: '2026-11-01T09:00:00.000Z' },
};
const deleted: WebhookEvent = { type: 'WebhookDeleted', data: { webhookId: uuid(12), organizationId: acme } };
const asked: WebhookEvent[] = [
  { type: 'WebhookTestRequested', data: { webhookId: uuid(11), organizationId: acme, eventId: uuid(50) } },
  { type: 'WebhookRetryRequested', data: { webhookId: uuid(11), organizationId: acme, eventId: uuid(50) } },
];

const rows = `SELECT webhook_id, organization_id, url, event_types, description, enabled, created_at, disabled_at, sealed_secret
              FROM webhooks ORDER BY webhook_id`;

describe('webhooks read model: each organization’s endpoints', () => {
  const given = projectorSpecs();

  it('WebhookCreated records it enabled, with its types in order and its secret sealed', () =>
    given(webhooksProjector, at('2026-11-01T09:00:00.000Z', created(uuid(11)))).thenRows(rows, [
      {
        webhook_id: uuid(11),
        organization_id: acme,
        url: 'https://hooks.example/1',
        event_types: ['request.accepted', 'record.updated'],
        description: 'CRM',
        enabled: true,
        created_at: '2026-11-01T09:00:00.000Z',
        disabled_at: null,
        sealed_secret: 'c2VhbGVk',
      },
    ]));

  it('WebhookDisabled keeps it, not enabled, since when; WebhookDeleted removes it; a test or retry asked writes nothing', () =>
    given(
      webhooksProjector,
      created(uuid(11)),
      created(uuid(12)),
      created(uuid(13), globex),
      at('2026-11-06T09:00:00.000Z', disabled),
      deleted,
      ...asked,
    ).thenRows('SELECT webhook_id, organization_id, enabled, disabled_at FROM webhooks ORDER BY webhook_id', [
      { webhook_id: uuid(11), organization_id: acme, enabled: false, disabled_at: '2026-11-06T09:00:00.000Z' },
      { webhook_id: uuid(13), organization_id: globex, enabled: true, disabled_at: null },
    ]));
});

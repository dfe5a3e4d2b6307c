import { readFileSync } from 'node:fs';
import { webhookEvents } from '../../events/webhook-events.js';
import { projector, writes } from '../projector.js';

const sql = {
  insert: `INSERT INTO webhooks (webhook_id, organization_id, url, event_types, description, enabled, created_at, sealed_secret)
           VALUES ($1, $2, $3, $4, $5, true, $6, $7)`,
  disable: `UPDATE webhooks SET enabled = false, disabled_at = $2 WHERE webhook_id = $1`,
  delete: `DELETE FROM webhooks WHERE webhook_id = $1`,
};

/** The webhooks of each organization, as GET /org/v1/webhooks lists them and deliveries read them. */
export const webhooksProjector = projector({
  name: 'webhooks',
  version: 1,
  schemaSql: readFileSync(new URL('./webhooks.sql', import.meta.url), 'utf8'),
  events: webhookEvents,
  on: {
    WebhookCreated: writes((e) => [
      [
        sql.insert,
        [
          e.data.webhookId,
          e.data.organizationId,
          e.data.url,
          e.data.eventTypes,
          e.data.description,
          e.metadata.occurredAt,
          e.data.sealedSecret,
        ],
      ],
    ]),
    WebhookDisabled: writes((e) => [[sql.disable, [e.data.webhookId, e.metadata.occurredAt]]]),
    WebhookDeleted: writes((e) => [[sql.delete, [e.data.webhookId]]]),
  },
});

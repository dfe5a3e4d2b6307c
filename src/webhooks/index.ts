/** Webhooks (contract §12, R-HOOK-*): an organization's endpoints, and the delivery of its events to them. */
import type { SqlDb } from '../db/sql.js';
import type { OrganizationService } from '../organizations/index.js';
import type { VaultKeyring } from '../vaults/keyring.js';
import type { JobQueue } from '../workers/queue/queue.js';
import { Deliveries, type DeliveryDeps, type DeliveryOptions } from './deliveries.js';
import { DeliveryLog } from './delivery-log.js';
import { WebhookService } from './webhook-service.js';
import type { AddressPolicy } from './webhook-url.js';

export { Deliveries, RETRY_SCHEDULE_MS, WEBHOOK_QUEUE, type DeliveryJob, type DeliveryOptions } from './deliveries.js';
export { WebhookService, type DeliveryView, type WebhookInput, type WebhookView } from './webhook-service.js';
export { MAX_URL_LENGTH, parseWebhookUrl, type AddressPolicy } from './webhook-url.js';
export type { Resolve } from './post.js';

/** What the delivery side needs, but the webhooks' own tables and secrets, which opening them provides. */
export type WebhooksDeps = Omit<DeliveryDeps, 'readModels' | 'log' | 'openSecret' | 'managers'> & {
  readonly db: SqlDb;
  readonly keyring: VaultKeyring;
  readonly organizations: Pick<OrganizationService, 'managers'>;
};

export type Webhooks = {
  readonly service: WebhookService;
  /** Whom a URL may name: the edge checks it at creation, each delivery again. */
  readonly policy: AddressPolicy;
  /** The delivery side, on the job queue the workers run (src/workers/webhook-workers.ts). */
  deliveries(queue: Pick<JobQueue, 'enqueue'>, options?: DeliveryOptions): Deliveries;
};

export async function openWebhooks(deps: WebhooksDeps): Promise<Webhooks> {
  const { db, keyring, organizations, ...delivery } = deps;
  const log = await DeliveryLog.open(db);
  const service = new WebhookService({ store: deps.store, waitFor: deps.waitFor, readModels: db, log, keyring });
  return {
    service,
    policy: deps.policy,
    deliveries: (queue, options) =>
      new Deliveries(
        {
          ...delivery,
          readModels: db,
          log,
          openSecret: (webhookId, sealed) => service.secretOf(webhookId, sealed),
          managers: (organizationId) => organizations.managers(organizationId),
        },
        queue,
        options,
      ),
  };
}

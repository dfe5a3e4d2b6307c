import { randomBytes, randomUUID } from 'node:crypto';
import { webhookDecider, type WebhookCommand } from '../commands/webhooks/webhook-decider.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { webhookStreams } from '../events/webhook-events.js';
import type { FeedEventType } from '../events-feed/index.js';
import type { FeedEventId, WebhookId } from '../ids.js';
import type { Member } from '../organizations/index.js';
import { unlessErased, type VaultKeyring } from '../vaults/keyring.js';
import type { AttemptRow, DeliveryLog } from './delivery-log.js';
import { webhookSql as q, type WebhookRow } from './webhook-queries.js';

/** A webhook as GET /org/v1/webhooks lists it (contract §12); never its secret. */
export type WebhookView = {
  readonly webhookId: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly description: string | null;
  readonly enabled: boolean;
  readonly createdAt: string;
};

/** One attempt of the delivery log (contract §12): newest first. */
export type DeliveryView = {
  readonly eventId: string;
  readonly eventType: string;
  readonly attempt: number;
  readonly status: 'succeeded' | 'failed';
  readonly responseStatus: number | null;
  readonly durationMs: number;
  readonly at: string;
  readonly error: string | null;
};

/** POST /org/v1/webhooks's input, checked at the edge (webhook-url.ts, the catalogue). */
export type WebhookInput = { readonly url: URL; readonly eventTypes: readonly FeedEventType[]; readonly description: string | null };

export type WebhookDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly log: DeliveryLog;
  readonly keyring: Pick<VaultKeyring, 'encrypt' | 'decrypt' | 'erase'>;
};

/** Standard Webhooks: `whsec_` and the base64 of 24 to 64 random bytes. */
const SECRET_BYTES = 32;
/** Binds a sealed secret to its webhook (the keyring adds the vault, here the webhook's own). */
const SECRET_CONTEXT = 'webhook-secret';

/**
 * The organization's webhooks (contract §12, R-HOOK-*): create, list and delete them, a test event,
 * a retry, the delivery log. Each signing secret is sealed with a key of the webhook's own, erased
 * when the webhook is deleted; it is shown once, when the webhook is created.
 */
export class WebhookService {
  constructor(private readonly deps: WebhookDeps) {}

  async create(member: Member, input: WebhookInput, context: EventContext): Promise<{ webhook: WebhookView; secret: string } | Refusal> {
    const webhookId = randomUUID();
    const secret = `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
    const sealed = await this.deps.keyring.encrypt(webhookId, Buffer.from(secret, 'utf8'), SECRET_CONTEXT);
    const data = {
      webhookId,
      organizationId: member.organizationId,
      url: input.url.href,
      eventTypes: input.eventTypes,
      description: input.description,
      sealedSecret: sealed.toString('base64'),
    };
    const done = await handle(
      this.deps,
      webhookStreams.webhook(webhookId),
      webhookDecider,
      { type: 'CreateWebhook', data },
      {
        context,
        newStream: true,
      },
    );
    if (isRefusal(done)) return done;
    const webhook = { webhookId, url: data.url, eventTypes: [...input.eventTypes], description: input.description, enabled: true };
    return { webhook: { ...webhook, createdAt: context.occurredAt }, secret };
  }

  async list(organizationId: string): Promise<WebhookView[]> {
    return (await this.deps.readModels.query<WebhookRow>(q.list, [organizationId])).rows.map(viewOf);
  }

  /** R-HOOK-03: nothing is delivered to it any more; its secret's key is erased and its log forgotten. */
  async remove(member: Member, webhookId: WebhookId, context: EventContext): Promise<true | Refusal> {
    const done = await this.command(
      webhookId,
      { type: 'DeleteWebhook', data: { organizationId: member.organizationId, webhookId } },
      context,
    );
    if (isRefusal(done)) return done;
    await this.deps.keyring.erase(webhookId);
    await this.deps.log.forget(webhookId);
    return true;
  }

  /** R-HOOK-06: a `webhook.test` event to this webhook only; answers its id, to find it in the delivery log. */
  async test(member: Member, webhookId: WebhookId, context: EventContext): Promise<{ eventId: string } | Refusal> {
    const eventId = randomUUID();
    const done = await this.command(
      webhookId,
      { type: 'RequestTest', data: { organizationId: member.organizationId, webhookId, eventId } },
      context,
    );
    return isRefusal(done) ? done : { eventId };
  }

  /** R-HOOK-06: one more attempt of a delivery in the log, now. */
  async retry(member: Member, webhookId: WebhookId, eventId: FeedEventId, context: EventContext): Promise<{ eventId: string } | Refusal> {
    const known = (await this.deps.log.delivery(webhookId, eventId)) !== null;
    const data = { organizationId: member.organizationId, webhookId, eventId, facts: { known } };
    const done = await this.command(webhookId, { type: 'RequestRetry', data }, context);
    return isRefusal(done) ? done : { eventId };
  }

  /** R-HOOK-06: the webhook's delivery log, newest first, a page after `cursor` (§10.6). */
  async deliveries(
    organizationId: string,
    webhookId: WebhookId,
    page: { readonly from: string | null; readonly limit: number },
  ): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null } | Refusal> {
    if ((await this.deps.readModels.query(q.owned, [webhookId, organizationId])).rowCount === 0)
      return refuse('not_found', 'no such webhook');
    const before = page.from === null ? null : attemptOf(page.from);
    if (before === undefined) return refuse('invalid_request', 'cursor is not one a page of this log gave');
    const rows = await this.deps.log.page(webhookId, before, page.limit + 1);
    const shown = rows.slice(0, page.limit);
    return { deliveries: shown.map(deliveryOf), nextCursor: rows.length > page.limit ? cursorOf(shown.at(-1)!.attempt_id) : null };
  }

  /** The webhook's signing secret, or null once it was deleted (its key erased). */
  async secretOf(webhookId: string, sealed: string): Promise<string | null> {
    const opened = await unlessErased(this.deps.keyring.decrypt(webhookId, Buffer.from(sealed, 'base64'), SECRET_CONTEXT));
    return opened === null ? null : opened.toString('utf8');
  }

  private command(webhookId: WebhookId, command: WebhookCommand, context: EventContext) {
    return handle(this.deps, webhookStreams.webhook(webhookId), webhookDecider, command, { context });
  }
}

/** A cursor, opaque to the client: the last attempt the page showed. */
const cursorOf = (attemptId: string) => Buffer.from(attemptId, 'utf8').toString('base64url');

/** The attempt a cursor names; undefined when no page gave it. */
function attemptOf(cursor: string): string | undefined {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^[1-9]\d{0,18}$/.test(id) && cursorOf(id) === cursor ? id : undefined;
}

const iso = (d: Date | string) => new Date(d).toISOString();

function viewOf(row: WebhookRow): WebhookView {
  return {
    webhookId: row.webhook_id,
    url: row.url,
    eventTypes: row.event_types,
    description: row.description,
    enabled: row.enabled,
    createdAt: iso(row.created_at),
  };
}

function deliveryOf(row: AttemptRow): DeliveryView {
  return {
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.succeeded ? 'succeeded' : 'failed',
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    at: iso(row.at),
    error: row.error,
  };
}

import { Webhook } from 'standardwebhooks';
import { webhookDecider } from '../commands/webhooks/webhook-decider.js';
import { isRefusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext, JsonObject } from '../events/envelope.js';
import type { Position } from '../events/position.js';
import { webhookStreams } from '../events/webhook-events.js';
import { isFeedEventType, type EventsFeed } from '../events-feed/index.js';
import type { Logger } from '../logger.js';
import { MailUnavailableError, type Mailer } from '../mail/index.js';
import type { JobQueue } from '../workers/queue/queue.js';
import type { DeliveryLog, DeliveryState } from './delivery-log.js';
import { webhookDisabledMail } from './disabled-mail.js';
import { POST_LIMITS, postWebhook, systemResolve, type PostLimits, type Resolve } from './post.js';
import { webhookSql as q, type EnabledRow, type TargetRow, type TouchedRow } from './webhook-queries.js';
import type { AddressPolicy } from './webhook-url.js';

export const WEBHOOK_QUEUE = 'webhook-delivery';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/**
 * R-HOOK-05: the waits before each retry of a failed delivery, the queue's delayed jobs: backing off
 * from a minute to ten hours, 127.6 hours in all. Past 72 hours (contract §12), and past the 5 days
 * after which an endpoint that fails every attempt is disabled, so one event alone can disable it.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  ...Array<number>(12).fill(10 * HOUR),
];

/** A job of the delivery queue: the delivery, and the attempt of its schedule (0 the first), or null for one a member asked for. */
export type DeliveryJob = { readonly webhookId: string; readonly eventId: string; readonly step: number | null };

/** What a delivery sends: a feed event (contract §12), or a webhook's test event. */
type Sent = { readonly id: string; readonly type: string; readonly organizationId: string };

export type DeliveryDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly log: DeliveryLog;
  readonly feed: Pick<EventsFeed, 'page'>;
  /** The webhook's signing secret, or null once it was deleted (its key erased). */
  readonly openSecret: (webhookId: string, sealed: string) => Promise<string | null>;
  readonly managers: (organizationId: string) => Promise<{ readonly name: string; readonly emails: readonly string[] } | null>;
  readonly mailer: Mailer;
  /** BASE_URL: the disabled mail links to the organization's webhooks page there. */
  readonly baseUrl: string;
  readonly logger: Logger;
  readonly policy: AddressPolicy;
  readonly now: () => Date;
};

/** What tests change: a schedule in milliseconds, a resolver that maps a name to loopback, shorter limits. */
export type DeliveryOptions = {
  readonly schedule?: readonly number[];
  readonly resolve?: Resolve;
  readonly limits?: PostLimits;
};

const jobId = (webhookId: string, eventId: string, step: number) => `webhook-${webhookId}-${eventId}-${step}`;

/**
 * The delivery of events to webhooks (contract §12, docs/webhooks.md): which delivery each feed event
 * makes, and each attempt of one, signed per Standard Webhooks, retried by the schedule through the
 * job queue, logged, and the endpoint disabled after 5 days of failure.
 */
export class Deliveries {
  private readonly schedule: readonly number[];
  private readonly resolve: Resolve;
  private readonly limits: PostLimits;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly queue: Pick<JobQueue, 'enqueue'>,
    options: DeliveryOptions = {},
  ) {
    this.schedule = options.schedule ?? RETRY_SCHEDULE_MS;
    this.resolve = options.resolve ?? systemResolve;
    this.limits = options.limits ?? POST_LIMITS;
  }

  /** Of the log's events from `from` to `to`, the places that gave feed events to organizations with a webhook that delivers, with them. */
  async touched(from: Position, to: Position): Promise<TouchedRow[]> {
    const at = (p: Position) => [p.commit.toString(), p.prepare.toString()];
    return (await this.deps.readModels.query<TouchedRow>(q.touched, [...at(from), ...at(to)])).rows;
  }

  /**
   * R-HOOK-04: the organization's webhooks follow its events feed, as an integrator would, from a
   * cursor of their own: each new event of a type a webhook is sent, from its creation on, becomes a
   * delivery, once, whatever the feed is read again from.
   */
  async fanOut(organizationId: string): Promise<void> {
    const webhooks = (await this.deps.readModels.query<EnabledRow>(q.enabledOf, [organizationId])).rows.map((w) => ({
      webhookId: w.webhook_id,
      types: new Set(w.event_types),
      since: new Date(w.created_at).getTime(),
    }));
    if (webhooks.length === 0) return;
    const types = [...new Set(webhooks.flatMap((w) => [...w.types]))].filter(isFeedEventType);
    let after = await this.deps.log.cursor(organizationId);
    for (;;) {
      const page = await this.deps.feed.page(organizationId, { after, limit: 1000, types });
      if (isRefusal(page)) throw new Error(`the events feed refused the webhooks' own cursor: ${page.message}`);
      for (const event of page.events)
        for (const w of webhooks)
          if (w.types.has(event.type) && Date.parse(event.occurredAt) >= w.since) await this.add(w.webhookId, event, JSON.stringify(event));
      if (page.nextCursor === null || page.nextCursor === after) return;
      after = page.nextCursor;
      await this.deps.log.moveCursor(organizationId, after);
    }
  }

  /** R-HOOK-06: the `webhook.test` event a member asked for, to that webhook only. */
  async deliverTest(
    test: { readonly webhookId: string; readonly organizationId: string; readonly eventId: string },
    occurredAt: string,
  ): Promise<void> {
    const event = { id: test.eventId, type: 'webhook.test', occurredAt, organizationId: test.organizationId };
    await this.add(test.webhookId, event, JSON.stringify(event));
  }

  /** R-HOOK-06: one more attempt of a delivery, now, as a member asked (`key`: the request's own, so it is made once). */
  async retry(webhookId: string, eventId: string, key: string): Promise<void> {
    await this.queue.enqueue(WEBHOOK_QUEUE, `webhook-retry-${key}`, { webhookId, eventId, step: null });
  }

  /** A delivery exists before its first job: a job that finds none has nothing to send. */
  private async add(webhookId: string, event: Sent, body: string): Promise<void> {
    await this.deps.log.add(webhookId, event, body);
    await this.queue.enqueue(WEBHOOK_QUEUE, jobId(webhookId, event.id, 0), { webhookId, eventId: event.id, step: 0 });
  }

  /**
   * One attempt (a job of WEBHOOK_QUEUE). A scheduled attempt is made once: its job run again finds
   * it made and only makes sure the next one is scheduled. Nothing is sent to a webhook deleted or
   * disabled, nor again once delivered, except when a member asks (step null).
   */
  async attempt(job: DeliveryJob): Promise<void> {
    const { webhookId, eventId, step } = job;
    const target = (await this.deps.readModels.query<TargetRow>(q.target, [webhookId])).rows[0];
    const delivery = await this.deps.log.delivery(webhookId, eventId);
    if (!target?.enabled || !delivery) return;
    if (step !== null) {
      if (delivery.state !== 'pending') return;
      const made = await this.deps.log.made(webhookId, eventId, step);
      if (made) {
        if (!made.succeeded) await this.next(job);
        return;
      }
    }
    const secret = await this.deps.openSecret(webhookId, target.sealed_secret);
    if (secret === null) return;
    const at = this.deps.now();
    const outcome = await postWebhook(new URL(target.url), signed(secret, eventId, at, delivery.body), delivery.body, {
      ...this.deps.policy,
      resolve: this.resolve,
      limits: this.limits,
    });
    const state: DeliveryState = outcome.succeeded
      ? 'delivered'
      : step !== null && step >= this.schedule.length
        ? 'failed'
        : delivery.state;
    await this.deps.log.record(webhookId, eventId, { step, ...outcome, at }, state);
    this.deps.logger.info({ webhookId, eventId, step, succeeded: outcome.succeeded, status: outcome.responseStatus }, 'webhook attempt');
    if (outcome.succeeded) return;
    await this.next(job);
    await this.disableIfFailing(webhookId, eventId, at);
  }

  /** The schedule's next attempt after a failed one, unless it has run out. */
  private async next({ webhookId, eventId, step }: DeliveryJob): Promise<void> {
    if (step === null || step >= this.schedule.length) return;
    const payload: JsonObject = { webhookId, eventId, step: step + 1 };
    await this.queue.enqueue(WEBHOOK_QUEUE, jobId(webhookId, eventId, step + 1), payload, { delayMs: this.schedule[step]! });
  }

  /** R-HOOK-07: the decider disables an endpoint failing for 5 days; its managers hear of it. */
  private async disableIfFailing(webhookId: string, eventId: string, now: Date): Promise<void> {
    const failingSince = await this.deps.log.failingSince(webhookId);
    if (failingSince === null) return;
    const context: EventContext = {
      occurredAt: now.toISOString(),
      actor: { kind: 'system', id: 'webhook-delivery' },
      correlationId: eventId,
      causationId: eventId,
    };
    // A fresh command id: of attempts failing at once, one appends and the others decide again on the disabled webhook, and mail nobody.
    const disable = { type: 'DisableWebhook', data: { failingSince, now } } as const;
    const done = await handle(this.deps, webhookStreams.webhook(webhookId), webhookDecider, disable, { context });
    if (isRefusal(done) || done.events.length === 0 || done.state.status === 'none') return;
    await this.mailManagers(done.state.organizationId, webhookId);
  }

  /** Each manager is mailed whether or not another's mail goes out, as a member stands without their welcome mail. */
  private async mailManagers(organizationId: string, webhookId: string): Promise<void> {
    const managers = await this.deps.managers(organizationId);
    if (!managers) return;
    const page = `${this.deps.baseUrl}/org/${organizationId}/webhooks`;
    for (const email of managers.emails) {
      try {
        await this.deps.mailer.send(webhookDisabledMail(email, managers.name, webhookId, page));
      } catch (e) {
        if (!(e instanceof MailUnavailableError)) throw e;
        this.deps.logger.warn({ reason: e.reason, webhookId }, 'webhook disabled mail could not be handed over');
      }
    }
  }
}

/**
 * Standard Webhooks' headers, signed by its own library (contract §12): `webhook-id` the event's id,
 * so a receiver de-duplicates by it; `webhook-timestamp` in seconds; `webhook-signature` `v1,<HMAC-SHA256>`.
 */
function signed(secret: string, eventId: string, at: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'data-sharing-service-webhooks/1',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  };
}

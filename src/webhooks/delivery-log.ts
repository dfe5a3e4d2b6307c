import { readFile } from 'node:fs/promises';
import type { SqlDb } from '../db/sql.js';

const sql = {
  add: `INSERT INTO webhooks.deliveries (webhook_id, event_id, organization_id, event_type, body) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (webhook_id, event_id) DO NOTHING`,
  delivery: `SELECT organization_id::text AS organization_id, event_type, body, state FROM webhooks.deliveries
             WHERE webhook_id = $1 AND event_id = $2`,
  /** A scheduled attempt already made (its job ran again): whether it succeeded. */
  made: `SELECT succeeded FROM webhooks.attempts WHERE webhook_id = $1 AND event_id = $2 AND step = $3`,
  /** One attempt, numbered after the delivery's others; a scheduled one that was made already is not made again. */
  record: `INSERT INTO webhooks.attempts (webhook_id, event_id, step, attempt, succeeded, response_status, duration_ms, error, at)
           SELECT $1, $2, $3, coalesce(max(attempt), 0) + 1, $4, $5, $6, $7, $8
           FROM webhooks.attempts WHERE webhook_id = $1 AND event_id = $2
           ON CONFLICT (webhook_id, event_id, step) WHERE step IS NOT NULL DO NOTHING`,
  settle: `UPDATE webhooks.deliveries SET state = $3 WHERE webhook_id = $1 AND event_id = $2 AND state <> 'delivered'`,
  /** Since when every attempt at the webhook failed: the first failure after its last success; null when its last attempt succeeded. */
  failingSince: `SELECT min(at) AS since FROM webhooks.attempts
                 WHERE webhook_id = $1 AND NOT succeeded AND attempt_id > coalesce(
                   (SELECT max(attempt_id) FROM webhooks.attempts WHERE webhook_id = $1 AND succeeded), 0)`,
  /** GET …/deliveries: a page of attempts, newest first, after a cursor (the last attempt_id shown). */
  page: `SELECT a.attempt_id::text AS attempt_id, a.event_id::text AS event_id, d.event_type, a.attempt, a.succeeded,
                a.response_status, a.duration_ms, a.error, a.at
         FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.webhook_id = a.webhook_id AND d.event_id = a.event_id
         WHERE a.webhook_id = $1 AND ($2::bigint IS NULL OR a.attempt_id < $2::bigint)
         ORDER BY a.attempt_id DESC LIMIT $3`,
  cursor: `SELECT after FROM webhooks.feed_cursors WHERE organization_id = $1`,
  moveCursor: `INSERT INTO webhooks.feed_cursors (organization_id, after) VALUES ($1, $2)
               ON CONFLICT (organization_id) DO UPDATE SET after = EXCLUDED.after`,
  forgetAttempts: `DELETE FROM webhooks.attempts WHERE webhook_id = $1`,
  forgetDeliveries: `DELETE FROM webhooks.deliveries WHERE webhook_id = $1`,
};

export type DeliveryState = 'pending' | 'delivered' | 'failed';
export type DeliveryRow = { organization_id: string; event_type: string; body: string; state: DeliveryState };
export type AttemptRow = {
  attempt_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  succeeded: boolean;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  at: Date | string;
};

/** What one attempt did, as the log keeps it. */
export type Attempt = {
  readonly step: number | null;
  readonly succeeded: boolean;
  readonly responseStatus: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly at: Date;
};

/** The webhooks schema (delivery-log.sql): deliveries, their attempts, and where each organization's webhooks stand in its feed. */
export class DeliveryLog {
  private constructor(private readonly db: SqlDb) {}

  static async open(db: SqlDb): Promise<DeliveryLog> {
    await db.exec(await readFile(new URL('./delivery-log.sql', import.meta.url), 'utf8'));
    return new DeliveryLog(db);
  }

  /** The delivery of an event to a webhook, unless it exists (R-HOOK-04: once per webhook and event). */
  async add(
    webhookId: string,
    event: { readonly id: string; readonly type: string; readonly organizationId: string },
    body: string,
  ): Promise<void> {
    await this.db.query(sql.add, [webhookId, event.id, event.organizationId, event.type, body]);
  }

  async delivery(webhookId: string, eventId: string): Promise<DeliveryRow | null> {
    return (await this.db.query<DeliveryRow>(sql.delivery, [webhookId, eventId])).rows[0] ?? null;
  }

  /** Whether the scheduled attempt `step` was made, and how it went; null when it was not. */
  async made(webhookId: string, eventId: string, step: number): Promise<{ succeeded: boolean } | null> {
    return (await this.db.query<{ succeeded: boolean }>(sql.made, [webhookId, eventId, step])).rows[0] ?? null;
  }

  /** Records an attempt and what it leaves the delivery: delivered, failed for good, or pending still. */
  async record(webhookId: string, eventId: string, attempt: Attempt, state: DeliveryState): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(sql.record, [
        webhookId,
        eventId,
        attempt.step,
        attempt.succeeded,
        attempt.responseStatus,
        attempt.durationMs,
        attempt.error,
        attempt.at,
      ]);
      await tx.query(sql.settle, [webhookId, eventId, state]);
    });
  }

  async failingSince(webhookId: string): Promise<Date | null> {
    const since = (await this.db.query<{ since: Date | string | null }>(sql.failingSince, [webhookId])).rows[0]?.since ?? null;
    return since === null ? null : new Date(since);
  }

  /** Up to `limit` attempts, newest first, before the attempt `before` (null: from the newest). */
  async page(webhookId: string, before: string | null, limit: number): Promise<AttemptRow[]> {
    return (await this.db.query<AttemptRow>(sql.page, [webhookId, before, limit])).rows;
  }

  async cursor(organizationId: string): Promise<string | null> {
    return (await this.db.query<{ after: string }>(sql.cursor, [organizationId])).rows[0]?.after ?? null;
  }

  async moveCursor(organizationId: string, after: string): Promise<void> {
    await this.db.query(sql.moveCursor, [organizationId, after]);
  }

  /** A deleted webhook's deliveries and attempts: nothing reads them any more. */
  async forget(webhookId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(sql.forgetAttempts, [webhookId]);
      await tx.query(sql.forgetDeliveries, [webhookId]);
    });
  }
}

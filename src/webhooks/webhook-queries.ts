/** Read-model queries of the webhooks projector's table (src/projections/webhooks). */
export const webhookSql = {
  /** GET /org/v1/webhooks: the organization's webhooks, the earliest created first. */
  list: `SELECT webhook_id::text AS webhook_id, url, event_types, description, enabled, created_at
         FROM rm.webhooks WHERE organization_id = $1 ORDER BY created_at, webhook_id`,
  /** One webhook of the organization; another organization's is none. */
  owned: `SELECT webhook_id::text AS webhook_id, url, event_types, description, enabled, created_at
          FROM rm.webhooks WHERE webhook_id = $1 AND organization_id = $2`,
  /** What a delivery needs of its webhook: where to, whether it still delivers, its secret. */
  target: `SELECT organization_id::text AS organization_id, url, enabled, sealed_secret FROM rm.webhooks WHERE webhook_id = $1`,
  /** The organization's webhooks that deliver, with what they are sent since when. */
  enabledOf: `SELECT webhook_id::text AS webhook_id, event_types, created_at FROM rm.webhooks
              WHERE organization_id = $1 AND enabled ORDER BY created_at, webhook_id`,
  /**
   * Of the log's events between two places (inclusive), those that gave feed events to an organization
   * with a webhook that delivers, each with that organization: only theirs need a delivery looked for.
   */
  touched: `SELECT DISTINCT f.commit_pos::text AS commit, f.prepare_pos::text AS prepare, f.organization_id::text AS organization_id
            FROM rm.events_feed f
            WHERE (f.commit_pos, f.prepare_pos) >= ($1::numeric, $2::numeric)
              AND (f.commit_pos, f.prepare_pos) <= ($3::numeric, $4::numeric)
              AND EXISTS (SELECT 1 FROM rm.webhooks w WHERE w.organization_id = f.organization_id AND w.enabled)`,
};

export type WebhookRow = {
  webhook_id: string;
  url: string;
  event_types: string[];
  description: string | null;
  enabled: boolean;
  created_at: Date | string;
};
export type TargetRow = { organization_id: string; url: string; enabled: boolean; sealed_secret: string };
export type EnabledRow = { webhook_id: string; event_types: string[]; created_at: Date | string };
export type TouchedRow = { commit: string; prepare: string; organization_id: string };

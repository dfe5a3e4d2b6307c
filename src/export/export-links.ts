import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { SqlDb } from '../db/sql.js';
import type { Caller, IdentityService } from '../identity/identity-service.js';

/** Contract §9: user.export answers a download URL valid 15 minutes, once. */
export const EXPORT_LINK_TTL_MS = 15 * 60 * 1000;
const SECRET_BYTES = 32;

const sql = {
  purge: `DELETE FROM exports.links WHERE expires_at <= $1`,
  insert: `INSERT INTO exports.links (link_hash, identity_id, session_id, email, expires_at) VALUES ($1, $2, $3, $4, $5)`,
  holder: `SELECT identity_id::text AS identity_id, session_id::text AS session_id, email FROM exports.links
           WHERE link_hash = $1 AND expires_at > $2`,
  // Deleting is redeeming: of two downloads racing with one link, exactly one gets the row.
  redeem: `DELETE FROM exports.links WHERE link_hash = $1 AND expires_at > $2 RETURNING link_hash`,
};

export type ExportLinkDeps = {
  readonly db: SqlDb;
  readonly identities: Pick<IdentityService, 'liveSession'>;
  readonly baseUrl: string;
  readonly now: () => Date;
};

/** R-EXP-02: one-time, short-lived capability URLs for GET /vault/export. */
export class ExportLinks {
  private constructor(private readonly deps: ExportLinkDeps) {}

  static async open(deps: ExportLinkDeps): Promise<ExportLinks> {
    await deps.db.exec(await readFile(new URL('./export-links.sql', import.meta.url), 'utf8'));
    return new ExportLinks(deps);
  }

  async issue(caller: Caller): Promise<string> {
    const now = this.deps.now();
    const secret = randomBytes(SECRET_BYTES).toString('base64url');
    await this.deps.db.query(sql.purge, [now]);
    await this.deps.db.query(sql.insert, [
      hashOf(secret),
      caller.identityId,
      caller.sessionId,
      caller.email,
      new Date(now.getTime() + EXPORT_LINK_TTL_MS),
    ]);
    return `${this.deps.baseUrl}/vault/export?link=${secret}`;
  }

  /**
   * The caller the link was made for, leaving the link as it is: null for a link unknown, used,
   * expired, or whose session ended since. The download is then admitted (fair use, the person's
   * turn) before redeem() uses the link up, so a download refused for now leaves it good.
   */
  async holder(secret: string): Promise<Caller | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
    const row = (
      await this.deps.db.query<{ identity_id: string; session_id: string; email: string }>(sql.holder, [hashOf(secret), this.deps.now()])
    ).rows[0];
    if (!row || !(await this.deps.identities.liveSession(row.identity_id, row.session_id))) return null;
    return { identityId: row.identity_id, sessionId: row.session_id, email: row.email };
  }

  /** Uses the link up: true for the one download that gets it, false once it is used or expired. */
  async redeem(secret: string): Promise<boolean> {
    return (await this.deps.db.query(sql.redeem, [hashOf(secret), this.deps.now()])).rows.length === 1;
  }
}

const hashOf = (secret: string): Buffer => createHash('sha256').update(secret).digest();

import { readFile } from 'node:fs/promises';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { SqlDb } from '../db/sql.js';

const sql = {
  upsert: `INSERT INTO oauth.artifacts (model, id, payload, grant_id, uid, expires_at)
           VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::integer IS NULL THEN NULL ELSE now() + $6::integer * interval '1 second' END)
           ON CONFLICT (model, id) DO UPDATE
           SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
  find: `SELECT payload, consumed_at FROM oauth.artifacts WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > now())`,
  findByUid: `SELECT payload, consumed_at FROM oauth.artifacts
              WHERE model = $1 AND uid = $2 AND (expires_at IS NULL OR expires_at > now())`,
  consume: `UPDATE oauth.artifacts SET consumed_at = now() WHERE model = $1 AND id = $2`,
  destroy: `DELETE FROM oauth.artifacts WHERE model = $1 AND id = $2`,
  revokeByGrantId: `DELETE FROM oauth.artifacts WHERE grant_id = $1`,
  sweep: `DELETE FROM oauth.artifacts WHERE expires_at < now() - interval '1 hour'`,
  proof: `INSERT INTO oauth.dpop_proofs (jti, expires_at) VALUES ($1, now() + $2::integer * interval '1 second')
          ON CONFLICT (jti) DO NOTHING`,
  sweepProofs: `DELETE FROM oauth.dpop_proofs WHERE expires_at < now()`,
};

type Row = { payload: AdapterPayload; consumed_at: Date | string | null };

/** oidc-provider's storage (its Adapter) in the service's database: one table for every model. */
export class OAuthStore {
  private constructor(private readonly db: SqlDb) {}

  static async open(db: SqlDb): Promise<OAuthStore> {
    await db.exec(await readFile(new URL('./oauth-store.sql', import.meta.url), 'utf8'));
    return new OAuthStore(db);
  }

  /** The adapter of one model (AccessToken, Grant, Interaction...), as oidc-provider constructs it. */
  adapter(model: string): Adapter {
    const db = this.db;
    const one = async (text: string, key: string): Promise<AdapterPayload | undefined> => {
      const row = (await db.query<Row>(text, [model, key])).rows[0];
      if (!row) return undefined;
      return row.consumed_at === null ? row.payload : { ...row.payload, consumed: new Date(row.consumed_at).getTime() / 1000 };
    };
    return {
      async upsert(id, payload, expiresIn) {
        const seconds = expiresIn === undefined ? null : Math.ceil(expiresIn);
        await db.query(sql.upsert, [model, id, payload, payload.grantId ?? null, payload.uid ?? null, seconds]);
      },
      find: (id) => one(sql.find, id),
      findByUid: (uid) => one(sql.findByUid, uid),
      // The device flow is off: no user codes.
      findByUserCode: async () => undefined,
      async consume(id) {
        await db.query(sql.consume, [model, id]);
      },
      async destroy(id) {
        await db.query(sql.destroy, [model, id]);
      },
      async revokeByGrantId(grantId) {
        await db.query(sql.revokeByGrantId, [grantId]);
      },
    };
  }

  /** Records a DPoP proof's jti; false when it was seen already (a replay). */
  async firstUseOfProof(jti: string, validForSeconds: number): Promise<boolean> {
    return (await this.db.query(sql.proof, [jti, validForSeconds])).rowCount === 1;
  }

  /** Drops what expired an hour ago and proofs past their window (openPartner runs it every 10 minutes). */
  async sweep(): Promise<void> {
    await this.db.query(sql.sweep);
    await this.db.query(sql.sweepProofs);
  }
}

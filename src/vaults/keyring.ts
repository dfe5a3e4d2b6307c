import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { among, LISTED_PARAMS } from '../db/listed-params.js';
import type { SqlDb } from '../db/sql.js';
import { masterKeyId, open, openStream, seal, sealStream, type StreamOpener, type StreamSealer } from './envelope-crypto.js';

/** Seals a value with a key fetched once (VaultKeyring.sealer). */
export type Seal = (plaintext: Buffer, context: string) => Buffer;

/** Opens synchronously with a key fetched once (VaultKeyring.opener). */
export type Opener = (sealed: Buffer, context: string) => Buffer;

/** Opens a value sealed in a vault (VaultKeyring.decrypt's shape). */
export type Decrypt = (vaultId: string, sealed: Buffer, context: string) => Promise<Buffer>;

export class VaultKeyErasedError extends Error {
  override readonly name = 'VaultKeyErasedError';
  constructor(readonly vaultId: string) {
    super(`the key of vault ${vaultId} was erased`);
  }
}

/** What `use` answers, or null once its vault's key was erased: for callers that take a shredded vault as gone. */
export async function unlessErased<T>(use: Promise<T>): Promise<T | null> {
  try {
    return await use;
  } catch (e) {
    if (e instanceof VaultKeyErasedError) return null;
    throw e;
  }
}

const DATA_KEY_BYTES = 32;
/** Vault ids remembered as having a key row; past it the memory starts again (it only saves work). */
const KNOWN_VAULTS = 100_000;

/** The service's own vault: its key derives secrets that must outlive MASTER_KEY rotation. */
export const SERVICE_VAULT_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Envelope encryption: each vault (a person, a legal entity, an organization) has its own
 * AES-256 data key, stored only wrapped by MASTER_KEY. Data keys are unwrapped per use and not
 * cached, so an erasure on one instance takes effect on every instance at once.
 */
export class VaultKeyring {
  private readonly masterId: string;
  /**
   * Vaults this process has seen a key row of. A row is never deleted (an erasure overwrites its
   * key with NULL), so such a vault's key is only read: no fresh key is drawn and wrapped for an
   * insert that would find the row there. Ids only, never keys: each use still reads the row.
   */
  private readonly keyed = new Set<string>();

  private constructor(
    private readonly db: SqlDb,
    private readonly masterKey: Buffer,
  ) {
    this.masterId = masterKeyId(masterKey);
  }

  static async open(db: SqlDb, masterKey: Buffer): Promise<VaultKeyring> {
    await db.exec(await readFile(new URL('./keyring.sql', import.meta.url), 'utf8'));
    return new VaultKeyring(db, masterKey);
  }

  /**
   * The vault's data key, created on first use. One statement whether it creates or reads the key:
   * a copy chain's first keep seals with a key of its own (R-ERAS-02), so every new chain would
   * otherwise pay a read that misses, then an insert, one round trip after the other.
   */
  async dataKey(vaultId: string): Promise<Buffer> {
    const known = this.keyed.has(vaultId) ? await this.storedRow(vaultId) : undefined;
    if (known) return this.unwrap(vaultId, known.wrapped_key);
    const fresh = randomBytes(DATA_KEY_BYTES);
    const found = await this.db.query<StoredKey>(CREATED_OR_STORED_KEY, [
      vaultId,
      seal(this.masterKey, fresh, wrapContext(vaultId)),
      this.masterId,
    ]);
    const row = found.rows[0] ?? (await this.storedRow(vaultId));
    if (!row) throw new Error(`vault ${vaultId} has no key row after its insert`);
    this.remember(vaultId);
    return row.made ? fresh : this.unwrap(vaultId, row.wrapped_key);
  }

  private remember(vaultId: string): void {
    if (this.keyed.size >= KNOWN_VAULTS) this.keyed.clear();
    this.keyed.add(vaultId);
  }

  /**
   * A first use racing with ours inserted the key after our statement's snapshot: our insert
   * yielded to it, and the statement saw neither row. The key is committed by then.
   */
  private async storedRow(vaultId: string): Promise<StoredKey | undefined> {
    return (await this.db.query<StoredKey>('SELECT wrapped_key, false AS made FROM keys.vault_keys WHERE vault_id = $1', [vaultId]))
      .rows[0];
  }

  /**
   * The key to open with: only read, since what was sealed has its key stored already. Opening
   * is the hot path (every document read, every keep's source), so it wraps no fresh key and
   * writes nothing; a vault with no key yet gets one as dataKey gives it, as it always did.
   */
  private async openingKey(vaultId: string): Promise<Buffer> {
    const row = await this.storedRow(vaultId);
    if (!row) return this.dataKey(vaultId);
    this.remember(vaultId);
    return this.unwrap(vaultId, row.wrapped_key);
  }

  /** Seals synchronously with a key fetched once: for decisions that seal per version they publish. */
  async sealer(vaultId: string): Promise<Seal> {
    return sealWith(vaultId, await this.dataKey(vaultId));
  }

  /**
   * Sealers and openers from the keys a caller's read took along (storedKeysJson), with no query of
   * their own: the rows read then are the rows sealersAndOpeners would read. A vault the read found
   * no key of goes the way sealer() and opener() go (a new chain's key is made then); an erased one
   * fails its sealer or opener with VaultKeyErasedError.
   */
  keysRead(read: readonly StoredKeyJson[]): VaultKeys {
    const wrapped = new Map(read.map((k) => [k.vaultId, k.wrappedKey === null ? null : Buffer.from(k.wrappedKey, 'base64')]));
    const unwrapped = (vaultId: string, wrappedKey: Buffer | null): Buffer => {
      this.remember(vaultId);
      return this.unwrap(vaultId, wrappedKey);
    };
    return {
      sealer: async (vaultId) => {
        const key = wrapped.get(vaultId);
        return key === undefined ? this.sealer(vaultId) : sealWith(vaultId, unwrapped(vaultId, key));
      },
      opener: async (vaultId) => {
        const key = wrapped.get(vaultId);
        return key === undefined ? this.opener(vaultId) : openWith(vaultId, unwrapped(vaultId, key));
      },
    };
  }

  /**
   * Sealers for some vaults and openers for others, every key read in one statement: a keep seals
   * with its chain's key (created on first use, as dataKey makes it) what it opens with the source
   * vault's, and a drain does so for all of its chains at once. Each sealer and opener fails alone,
   * as sealer() and opener() would; one asked of a vault not named here goes the way they go.
   */
  sealersAndOpeners(sealVaults: readonly string[], openVaults: readonly string[]): VaultKeys {
    // Sorted, so two statements making overlapping keys take their rows in one order and never deadlock.
    const unkeyed = [...new Set(sealVaults)].filter((v) => !this.keyed.has(v)).sort();
    const fresh = new Map(unkeyed.map((v) => [v, randomBytes(DATA_KEY_BYTES)]));
    const named = [...new Set([...sealVaults, ...openVaults])];
    const made = unkeyed.map((v) => ({ vaultId: v, wrapped: seal(this.masterKey, fresh.get(v)!, wrapContext(v)) }));
    const { text, values } = made.length > 0 ? createdAndStoredKeys(this.masterId, made, named) : storedKeys(named);
    const rows = this.db.query<StoredKey & { vault_id: string }>(text, values).then((r) => r.rows);
    // Its failure is each sealer's and opener's asked for; asked for none, it is no one's.
    rows.catch(() => undefined);
    const keyOf = async (vaultId: string, otherwise: () => Promise<Buffer>): Promise<Buffer> => {
      const row = (await rows).find((r) => r.vault_id === vaultId);
      // No row: a first use racing with ours committed after our snapshot (dataKey), or the vault has no key yet (openingKey).
      if (!row) return otherwise();
      this.remember(vaultId);
      const made = row.made ? fresh.get(vaultId) : undefined;
      return made ?? this.unwrap(vaultId, row.wrapped_key);
    };
    // Each is its caller's to await; one left unused (a version gone) must not fail the process.
    const settled = <T>(p: Promise<T>): Promise<T> => {
      p.catch(() => undefined);
      return p;
    };
    const sealers = new Set(sealVaults);
    const openers = new Set(openVaults);
    return {
      sealer: (vaultId) =>
        sealers.has(vaultId)
          ? settled(keyOf(vaultId, () => this.dataKey(vaultId)).then((key) => sealWith(vaultId, key)))
          : this.sealer(vaultId),
      opener: (vaultId) =>
        openers.has(vaultId)
          ? settled(keyOf(vaultId, () => this.openingKey(vaultId)).then((key) => openWith(vaultId, key)))
          : this.opener(vaultId),
    };
  }

  /** Seals a stream (a file upload) chunk by chunk; decrypt() with the same context opens the result. */
  async streamSealer(vaultId: string, context: string): Promise<StreamSealer> {
    return sealStream(await this.dataKey(vaultId), `${vaultId}:${context}`);
  }

  /** Opens synchronously with a key fetched once: for reads that open many values of one vault. */
  async opener(vaultId: string): Promise<Opener> {
    return openWith(vaultId, await this.openingKey(vaultId));
  }

  /** Opens large values (file bytes) chunk by chunk, with a key fetched once: `head` is their first SEALED_HEAD_BYTES. */
  async streamOpener(vaultId: string): Promise<(head: Uint8Array, context: string) => StreamOpener> {
    const key = await this.openingKey(vaultId);
    return (head, context) => openStream(key, head, `${vaultId}:${context}`);
  }

  /**
   * Opens values of several vaults with their keys read in one query: for a list that opens many
   * (a request's copies, each chain its own vault). Keys stay wrapped until a value needs one, so
   * an erased vault fails only its own values, with VaultKeyErasedError as decrypt() does.
   */
  async openerOf(vaultIds: readonly string[]): Promise<Decrypt> {
    const ids = [...new Set(vaultIds)];
    const rows =
      ids.length === 0
        ? []
        : (
            await this.db.query<{ vault_id: string; wrapped_key: Buffer | null }>(
              'SELECT vault_id::text AS vault_id, wrapped_key FROM keys.vault_keys WHERE vault_id = ANY($1::uuid[])',
              [ids],
            )
          ).rows;
    const wrapped = new Map(rows.map((r) => [r.vault_id, r.wrapped_key]));
    // Unwrapped once per vault, on first use: a list opens the kept and the current version of each.
    const keys = new Map<string, Buffer>();
    return async (vaultId, sealed, context) => {
      const key = wrapped.get(vaultId);
      // A vault outside the read (not asked for, or with no key yet) goes the way decrypt() goes.
      if (key === undefined) return this.decrypt(vaultId, sealed, context);
      let data = keys.get(vaultId);
      if (!data) keys.set(vaultId, (data = this.unwrap(vaultId, key)));
      return open(data, sealed, `${vaultId}:${context}`);
    };
  }

  async encrypt(vaultId: string, plaintext: Buffer, context: string): Promise<Buffer> {
    return seal(await this.dataKey(vaultId), plaintext, `${vaultId}:${context}`);
  }

  /** Throws VaultKeyErasedError once the vault's key is gone. */
  async decrypt(vaultId: string, sealed: Buffer, context: string): Promise<Buffer> {
    return open(await this.openingKey(vaultId), sealed, `${vaultId}:${context}`);
  }

  /** Crypto-shredding: the wrapped key is overwritten; every copy of the vault's data stays unreadable. */
  async erase(vaultId: string): Promise<void> {
    if (vaultId === SERVICE_VAULT_ID) throw new Error('the service vault key is never erased');
    await this.db.query(
      `INSERT INTO keys.vault_keys (vault_id, wrapped_key, master_id, erased_at) VALUES ($1, NULL, NULL, now())
       ON CONFLICT (vault_id) DO UPDATE SET wrapped_key = NULL, master_id = NULL, erased_at = now()`,
      [vaultId],
    );
  }

  /**
   * MASTER_KEY rotation: re-wraps every data key from `previous` to this keyring's master key.
   * Data is not touched. Idempotent; answers how many keys it re-wrapped.
   */
  async rewrapFrom(previous: Buffer): Promise<number> {
    const previousId = masterKeyId(previous);
    let count = 0;
    for (;;) {
      const moved = await this.db.transaction(async (tx) => {
        const rows = (
          await tx.query<{ vault_id: string; wrapped_key: Buffer }>(
            `SELECT vault_id::text AS vault_id, wrapped_key FROM keys.vault_keys WHERE master_id = $1 LIMIT 500 FOR UPDATE SKIP LOCKED`,
            [previousId],
          )
        ).rows;
        for (const row of rows) {
          const key = open(previous, Buffer.from(row.wrapped_key), wrapContext(row.vault_id));
          await tx.query('UPDATE keys.vault_keys SET wrapped_key = $2, master_id = $3 WHERE vault_id = $1', [
            row.vault_id,
            seal(this.masterKey, key, wrapContext(row.vault_id)),
            this.masterId,
          ]);
        }
        return rows.length;
      });
      count += moved;
      if (moved === 0) return count;
    }
  }

  private unwrap(vaultId: string, wrapped: Buffer | null): Buffer {
    if (!wrapped) throw new VaultKeyErasedError(vaultId);
    return open(this.masterKey, Buffer.from(wrapped), wrapContext(vaultId));
  }
}

const wrapContext = (vaultId: string) => `vault-key:${vaultId}`;

/** A stored key as storedKeysJson reads it: its wrapped key in base64, null once erased. */
export type StoredKeyJson = { readonly vaultId: string; readonly wrappedKey: string | null };

/**
 * The stored keys of some vaults (`vaults`, SQL expressions of their uuids; a null one names none)
 * as one json column of a caller's read, null when none has a key row, so a command's first read
 * brings the keys it seals and opens with (VaultKeyring.keysRead). Read per use as every key is, in
 * the same snapshot as the rest of the read: an erasure counts from its commit on.
 */
export const storedKeysJson = (vaults: readonly string[]): string =>
  `(SELECT json_agg(json_build_object('vaultId', k.vault_id, 'wrappedKey', encode(k.wrapped_key, 'base64')))
     FROM keys.vault_keys k WHERE k.vault_id IN (${vaults.join(', ')}))`;

/** A sealer or an opener of each vault a statement read the keys of (VaultKeyring.sealersAndOpeners). */
export type VaultKeys = {
  readonly sealer: (vaultId: string) => Promise<Seal>;
  readonly opener: (vaultId: string) => Promise<Opener>;
};

/** A vault's stored key, and whether the statement that read it had just made it. */
type StoredKey = { wrapped_key: Buffer | null; made: boolean };

type Statement = { readonly text: string; readonly values: readonly unknown[] };

/**
 * CREATED_OR_STORED_KEY for each vault `made` (inserted in the order given), with the stored keys
 * of the vaults `named` (the insert's own rows are not among them: one snapshot); a few vaults are
 * listed, more go as arrays, one statement whatever their number (`among`).
 */
function createdAndStoredKeys(
  masterId: string,
  made: readonly { readonly vaultId: string; readonly wrapped: Buffer }[],
  named: readonly string[],
): Statement {
  const rows: Statement =
    made.length > LISTED_PARAMS
      ? {
          text: 'SELECT v, k, $1 FROM unnest($2::uuid[], $3::bytea[]) WITH ORDINALITY AS x(v, k, i) ORDER BY i',
          values: [made.map((m) => m.vaultId), made.map((m) => m.wrapped)],
        }
      : {
          text: `VALUES ${made.map((_, i) => `($${2 + 2 * i}::uuid, $${3 + 2 * i}::bytea, $1)`).join(', ')}`,
          values: made.flatMap((m) => [m.vaultId, m.wrapped]),
        };
  const stored = among('vault_id', 2 + rows.values.length, named, 'uuid');
  return {
    text: `
      WITH made AS (
        INSERT INTO keys.vault_keys (vault_id, wrapped_key, master_id) ${rows.text}
        ON CONFLICT (vault_id) DO NOTHING RETURNING vault_id, wrapped_key
      )
      SELECT vault_id::text AS vault_id, wrapped_key, true AS made FROM made
      UNION ALL
      SELECT vault_id::text AS vault_id, wrapped_key, false AS made FROM keys.vault_keys WHERE ${stored.text}`,
    values: [masterId, ...rows.values, ...stored.values],
  };
}

function storedKeys(named: readonly string[]): Statement {
  const stored = among('vault_id', 1, named, 'uuid');
  return {
    text: `SELECT vault_id::text AS vault_id, wrapped_key, false AS made FROM keys.vault_keys WHERE ${stored.text}`,
    values: stored.values,
  };
}

/**
 * Inserts the fresh key unless the vault has one, and answers whichever is stored: the new one
 * from the insert, else the old one (one statement's snapshot never sees its own insert, so never both).
 */
const CREATED_OR_STORED_KEY = `
  WITH made AS (
    INSERT INTO keys.vault_keys (vault_id, wrapped_key, master_id) VALUES ($1, $2, $3)
    ON CONFLICT (vault_id) DO NOTHING RETURNING wrapped_key
  )
  SELECT wrapped_key, true AS made FROM made
  UNION ALL
  SELECT wrapped_key, false AS made FROM keys.vault_keys WHERE vault_id = $1`;

/** A vault's sealer and opener over its data key: the context names the vault, so a value opens only in its own. */
const sealWith =
  (vaultId: string, key: Buffer): Seal =>
  (plaintext, context) =>
    seal(key, plaintext, `${vaultId}:${context}`);
const openWith =
  (vaultId: string, key: Buffer): Opener =>
  (sealed, context) =>
    open(key, sealed, `${vaultId}:${context}`);

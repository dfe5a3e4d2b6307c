import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { PostgresDb } from '../../src/db/postgres-db.js';
import type { SqlDb } from '../../src/db/sql.js';
import { masterKeyId, seal } from '../../src/vaults/envelope-crypto.js';
import { storedKeysJson, VaultKeyErasedError, VaultKeyring, type StoredKeyJson } from '../../src/vaults/keyring.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';

/** Sessions of this database waiting on a lock now. */
const lockWaiters = async (client: pg.Client): Promise<number> =>
  Number(
    (
      await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      )
    ).rows[0]!.n,
  );

async function waitUntil(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await done()); i++) await new Promise((r) => setTimeout(r, 25));
}

describe(`vault keys: envelope encryption (${mainBackend})`, function () {
  this.timeout(30_000);
  let t: TestDatabase;
  let keyring: VaultKeyring;
  const master = randomBytes(32);

  before(async () => {
    t = await openTestDatabase();
    keyring = await VaultKeyring.open(t.db, master);
  });
  after(() => t.drop());

  it('round-trips data per vault, and stores only the wrapped key', async () => {
    const vault = randomUUID();
    const sealed = await keyring.encrypt(vault, Buffer.from('{"iban":"DE89370400440532013000"}'), 'doc-1/v1');
    expect(sealed.toString('utf8')).to.not.contain('DE89');
    expect((await keyring.decrypt(vault, sealed, 'doc-1/v1')).toString()).to.contain('DE89');
    const row = (await t.db.query<{ wrapped_key: Uint8Array }>('SELECT wrapped_key FROM keys.vault_keys WHERE vault_id = $1', [vault]))
      .rows[0]!;
    expect(Buffer.from(row.wrapped_key).equals(await keyring.dataKey(vault))).to.equal(false);
  });

  it("first uses racing on two instances agree on one key: each one's ciphertext opens with the other's", async () => {
    const vault = randomUUID();
    const other = await VaultKeyring.open(t.db, master);
    const sealed = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? other : keyring).encrypt(vault, Buffer.from(`value ${i}`), `doc/v${i}`)),
    );
    const opened = await Promise.all(
      sealed.map(async (s, i) => (await (i % 2 ? keyring : other).decrypt(vault, s, `doc/v${i}`)).toString()),
    );
    expect(opened).to.deep.equal(Array.from({ length: 8 }, (_, i) => `value ${i}`));
  });

  it("a first use that meets another's uncommitted key waits for it, then uses that key (PostgreSQL)", async function () {
    if (t.db.kind !== 'postgres') return this.skip();
    const vault = randomUUID();
    const theirs = randomBytes(32);
    const other = new pg.Client({ connectionString: t.url! });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('INSERT INTO keys.vault_keys (vault_id, wrapped_key, master_id) VALUES ($1, $2, $3)', [
        vault,
        seal(master, theirs, `vault-key:${vault}`),
        masterKeyId(master),
      ]);
      const ours = keyring.dataKey(vault);
      // Once our statement waits on their row, their commit lands after its snapshot: it sees neither row.
      await waitUntil(async () => (await lockWaiters(other)) === 1);
      await other.query('COMMIT');
      expect((await ours).equals(theirs)).to.equal(true);
      expect((await keyring.dataKey(vault)).equals(theirs)).to.equal(true);
    } finally {
      await other.end();
    }
  });

  it('a ciphertext opens only in its own vault and context', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const sealed = await keyring.encrypt(a, Buffer.from('secret'), 'doc-1/v1');
    await keyring.dataKey(b);
    for (const attempt of [() => keyring.decrypt(b, sealed, 'doc-1/v1'), () => keyring.decrypt(a, sealed, 'doc-2/v1')]) {
      expect(
        await attempt().then(
          () => 'opened',
          () => 'refused',
        ),
      ).to.equal('refused');
    }
  });

  it('erasing a vault key makes its data unreadable while other vaults keep working', async () => {
    const [gone, kept] = [randomUUID(), randomUUID()];
    const sealedGone = await keyring.encrypt(gone, Buffer.from('erase me'), 'x');
    const sealedKept = await keyring.encrypt(kept, Buffer.from('keep me'), 'x');
    await keyring.erase(gone);
    const error = await keyring.decrypt(gone, sealedGone, 'x').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(VaultKeyErasedError);
    expect((await keyring.decrypt(kept, sealedKept, 'x')).toString()).to.equal('keep me');
    // An erased vault never gets a fresh key that could be mistaken for the old one.
    expect(
      await keyring.encrypt(gone, Buffer.from('new'), 'x').then(
        () => 'sealed',
        () => 'refused',
      ),
    ).to.equal('refused');
  });

  it('a vault whose key an instance has seen is only read after: no fresh key drawn and wrapped, and an erasure elsewhere still bites', async () => {
    const vault = randomUUID();
    const sent: string[] = [];
    const watched = Object.create(t.db) as SqlDb;
    watched.query = (text, params) => {
      sent.push(text.trim());
      return t.db.query(text, params);
    };
    const instance = await VaultKeyring.open(watched, master);
    const first = await instance.encrypt(vault, Buffer.from('first'), 'x');
    sent.length = 0;
    const second = await instance.encrypt(vault, Buffer.from('second'), 'x');
    expect(sent).to.have.length(1);
    expect(sent[0]).to.match(/^SELECT wrapped_key\b.* FROM keys\.vault_keys WHERE vault_id = \$1$/);
    expect((await keyring.decrypt(vault, second, 'x')).toString()).to.equal('second');

    const other = await VaultKeyring.open(t.db, master);
    await other.erase(vault);
    for (const use of [instance.encrypt(vault, Buffer.from('third'), 'x'), instance.decrypt(vault, first, 'x')]) {
      expect(
        await use.then(
          () => null,
          (e: unknown) => e,
        ),
      ).to.be.instanceOf(VaultKeyErasedError);
    }
  });

  it('opens values of several vaults from one read of their keys, an erased vault failing only its own values', async () => {
    const vaults = [randomUUID(), randomUUID(), randomUUID()];
    const sealed = await Promise.all(vaults.map((v, i) => keyring.encrypt(v, Buffer.from(`value ${i}`), 'copy/v1')));
    const erased = randomUUID();
    const sealedErased = await keyring.encrypt(erased, Buffer.from('gone'), 'copy/v1');
    await keyring.erase(erased);
    let reads = 0;
    const countingDb = Object.create(t.db) as SqlDb;
    countingDb.query = (text, params) => {
      reads++;
      return t.db.query(text, params);
    };
    const counting = await VaultKeyring.open(countingDb, master);
    reads = 0;
    const decrypt = await counting.openerOf([...vaults, erased]);
    const opened = await Promise.all(vaults.map(async (v, i) => (await decrypt(v, sealed[i]!, 'copy/v1')).toString()));
    expect(opened).to.deep.equal(['value 0', 'value 1', 'value 2']);
    expect(reads).to.equal(1);
    const error = await decrypt(erased, sealedErased, 'copy/v1').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(VaultKeyErasedError);
    // A value of another context still fails as decrypt() fails it.
    expect(
      await decrypt(vaults[0]!, sealed[0]!, 'copy/v2').then(
        () => 'opened',
        () => 'refused',
      ),
    ).to.equal('refused');
  });

  /** A keyring over the test database that notes the text of every query it sends (`sent`). */
  async function countingKeyring(): Promise<{ sent: string[]; counting: VaultKeyring }> {
    const sent: string[] = [];
    const countingDb = Object.create(t.db) as SqlDb;
    countingDb.query = (text, params) => {
      sent.push(text);
      return t.db.query(text, params);
    };
    return { sent, counting: await VaultKeyring.open(countingDb, master) };
  }

  it("a keep's two keys in one query: the chain's made on first use, the source's read; an erased source fails only the opener", async () => {
    const source = randomUUID();
    const sealedSource = await keyring.encrypt(source, Buffer.from('the source version'), 'doc/v1');
    const { sent, counting } = await countingKeyring();
    sent.length = 0;
    const chain = randomUUID();
    const first = counting.sealersAndOpeners([chain], [source]);
    const kept = (await first.sealer(chain))(Buffer.from('kept'), 'copy/v1');
    expect((await first.opener(source))(sealedSource, 'doc/v1').toString()).to.equal('the source version');
    expect(sent).to.have.length(1);
    // The chain's key is the one stored: another instance opens what the sealer sealed.
    expect((await keyring.decrypt(chain, kept, 'copy/v1')).toString()).to.equal('kept');
    // Once keyed, the chain's key is only read (no fresh key drawn), still in one query with the source's.
    sent.length = 0;
    const resealed = (await counting.sealersAndOpeners([chain], [source]).sealer(chain))(Buffer.from('same key'), 'copy/v2');
    expect(sent).to.have.length(1);
    expect(sent[0]).not.to.match(/INSERT/);
    expect((await keyring.decrypt(chain, resealed, 'copy/v2')).toString()).to.equal('same key');
    await keyring.erase(source);
    const another = randomUUID();
    const erasedSource = counting.sealersAndOpeners([another], [source]);
    expect(
      await erasedSource.opener(source).then(
        () => null,
        (e: unknown) => e,
      ),
    ).to.be.instanceOf(VaultKeyErasedError);
    expect((await erasedSource.sealer(another))(Buffer.from('still seals'), 'x').length).to.be.greaterThan(0);
  });

  it("keys a caller's read took along seal and open with no query; a vault it found no key of is keyed as sealer() keys it", async () => {
    const [source, chain, erased, fresh] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const sealedSource = await keyring.encrypt(source, Buffer.from('the source version'), 'doc/v1');
    await keyring.encrypt(chain, Buffer.from('kept before'), 'copy/v1');
    await keyring.erase(erased);
    const vaults = [source, chain, erased, fresh].map((v) => `'${v}'::uuid`);
    const read = (await t.db.query<{ keys: StoredKeyJson[] }>(`SELECT ${storedKeysJson(vaults)} AS keys`)).rows[0]!.keys;
    expect(read.map((k) => k.vaultId).sort()).to.deep.equal([source, chain, erased].sort());
    const { sent, counting } = await countingKeyring();
    sent.length = 0;
    const keys = counting.keysRead(read);
    expect((await keys.opener(source))(sealedSource, 'doc/v1').toString()).to.equal('the source version');
    const kept = (await keys.sealer(chain))(Buffer.from('kept again'), 'copy/v2');
    expect(sent, 'keys read with the caller').to.deep.equal([]);
    expect((await keyring.decrypt(chain, kept, 'copy/v2')).toString()).to.equal('kept again');
    expect(
      await keys.sealer(erased).then(
        () => null,
        (e: unknown) => e,
      ),
    ).to.be.instanceOf(VaultKeyErasedError);
    const madeNow = (await keys.sealer(fresh))(Buffer.from('a new chain'), 'copy/v1');
    expect(sent).to.have.length(1);
    expect((await keyring.decrypt(fresh, madeNow, 'copy/v1')).toString()).to.equal('a new chain');
  });

  it("a drain's keys in one query: every chain's made on first use, every source's read, each failing alone", async () => {
    const sources = [randomUUID(), randomUUID()];
    const sealed = await Promise.all(sources.map((v, i) => keyring.encrypt(v, Buffer.from(`source ${i}`), 'doc/v1')));
    await keyring.erase(sources[1]!);
    const { sent, counting } = await countingKeyring();
    // More chains than a statement lists as parameters: the drain's keys go as arrays.
    const chains = Array.from({ length: 6 }, () => randomUUID());
    sent.length = 0;
    const keys = counting.sealersAndOpeners(chains, sources);
    const kept = await Promise.all(chains.map(async (c) => (await keys.sealer(c))(Buffer.from(`kept in ${c}`), 'copy/v1')));
    expect((await keys.opener(sources[0]!))(sealed[0]!, 'doc/v1').toString()).to.equal('source 0');
    const erased = await keys.opener(sources[1]!).then(
      () => null,
      (e: unknown) => e,
    );
    expect(erased).to.be.instanceOf(VaultKeyErasedError);
    expect(sent).to.have.length(1);
    // Each chain's key is the one stored: another instance opens what its sealer sealed.
    for (const [i, c] of chains.entries()) expect((await keyring.decrypt(c, kept[i]!, 'copy/v1')).toString()).to.equal(`kept in ${c}`);
  });

  it("a keep's keys are planned a few times on a connection, not at every keep", async function () {
    if (!t.url) return this.skip(); // PostgreSQL's cached plans: PGlite runs the statements unnamed
    // Keys of some number (of another master key): on a nearly empty table any plan is cheap.
    await t.db.query(
      `INSERT INTO keys.vault_keys (vault_id, wrapped_key, master_id)
       SELECT gen_random_uuid(), '\\x00', 'another' FROM generate_series(1, 20000)`,
    );
    // One connection, so every keep and the look at its prepared statements share it.
    const db = new PostgresDb(t.url, { max: 1 });
    try {
      const keys = await VaultKeyring.open(db, master);
      const source = randomUUID();
      const sealedSource = await keys.encrypt(source, Buffer.from('the source version'), 'doc/v1');
      for (let keep = 0; keep < 12; keep++) {
        const chain = randomUUID();
        const both = keys.sealersAndOpeners([chain], [source]);
        expect((await both.sealer(chain))(Buffer.from('kept'), 'copy/v1').length).to.be.greaterThan(0);
        expect((await both.opener(source))(sealedSource, 'doc/v1').toString()).to.equal('the source version');
      }
      const plans = (
        await db.query<{ generic: number; custom: number }>(
          `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
           WHERE statement LIKE '%RETURNING vault_id, wrapped_key%'`,
        )
      ).rows;
      // With the vaults as arrays, the generic plan counted ten a statement and every keep was planned anew.
      expect(plans).to.have.length(1);
      expect(plans[0]!.custom).to.be.at.most(5);
      expect(plans[0]!.generic).to.be.at.least(7);
    } finally {
      await db.close();
    }
  });

  it('MASTER_KEY rotation re-wraps every data key without touching the data', async () => {
    const vault = randomUUID();
    const sealed = await keyring.encrypt(vault, Buffer.from('survives rotation'), 'x');
    const newMaster = randomBytes(32);
    const rotated = await VaultKeyring.open(t.db, newMaster);
    expect(await rotated.rewrapFrom(master)).to.be.greaterThan(0);
    expect(await rotated.rewrapFrom(master)).to.equal(0);
    expect((await rotated.decrypt(vault, sealed, 'x')).toString()).to.equal('survives rotation');
    expect(
      await keyring.decrypt(vault, sealed, 'x').then(
        () => 'opened',
        () => 'refused',
      ),
    ).to.equal('refused');
  });
});

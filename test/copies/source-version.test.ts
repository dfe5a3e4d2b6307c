import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { readSourceVersion, type SourceDeps } from '../../src/copies/source-version.js';
import { documentSealContext } from '../../src/documents/document-service.js';
import type { JsonObject } from '../../src/events/envelope.js';
import { SqlEventStore } from '../../src/events/sql/sql-event-store.js';
import type { EventStore } from '../../src/events/store.js';
import { BlobStore } from '../../src/files/blob-store.js';
import { fileSealContext } from '../../src/files/file-service.js';
import { VaultKeyring } from '../../src/vaults/keyring.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../support/databases.js';
import { newEvent } from '../support/events.js';

const PERSON = 'https://schemas.example.com/person';

describe(`the version a keep copies, read from the person's stream (${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  let store: SqlEventStore;
  let deps: SourceDeps;
  /** Events the reads below took from the log. */
  let eventsRead = 0;

  before(async () => {
    t = await openTestDatabase();
    store = await SqlEventStore.open(t.db);
    const counting: Pick<EventStore, 'readStream'> = {
      readStream: async (streamId, options) => {
        const events = await store.readStream(streamId, options);
        eventsRead += events.length;
        return events;
      },
    };
    deps = { store: counting, keyring: await VaultKeyring.open(t.db, randomBytes(32)), blobs: await BlobStore.open(t.db) };
  });
  after(() => t.drop());

  /** Given a document published `versions` times (version n holds {"n": n}), then deleted if asked. */
  async function documentOf(versions: number, options: { deleted?: boolean } = {}): Promise<string> {
    const resourceId = randomUUID();
    const vaultId = randomUUID();
    const events = [];
    for (let version = 1; version <= versions; version++) {
      const sealed = await deps.keyring.encrypt(
        vaultId,
        Buffer.from(JSON.stringify({ n: version })),
        documentSealContext(resourceId, version),
      );
      const data: JsonObject = {
        resourceId,
        vaultId,
        name: `v${version}`,
        description: null,
        version,
        sealedData: sealed.toString('base64'),
      };
      events.push(
        version === 1
          ? newEvent('DocumentCreated', { ...data, schemaRef: PERSON, documentSchema: null, uniquePerVault: false })
          : newEvent('DocumentUpdated', data),
      );
    }
    if (options.deleted) events.push(newEvent('DocumentDeleted', { resourceId, vaultId }));
    await store.appendToStream(`resource-${resourceId}`, events, 'no_stream');
    eventsRead = 0;
    return resourceId;
  }

  const contentOf = (read: Awaited<ReturnType<typeof readSourceVersion>>): unknown =>
    read?.kind === 'document'
      ? { name: read.name, schemaRef: read.schemaRef, data: JSON.parse(read.plaintext.toString('utf8')) as unknown }
      : read;

  it('the newest of 40 versions is read with the first (its schema), not with the 38 between', async () => {
    const resourceId = await documentOf(40);
    expect(contentOf(await readSourceVersion(deps, resourceId, 40))).to.deep.equal({ name: 'v40', schemaRef: PERSON, data: { n: 40 } });
    expect(eventsRead).to.equal(2);
  });

  it('the newest version read with its grant opens from that row, reading no event; any other version reads the stream', async () => {
    const resourceId = await documentOf(3);
    const [row] = await store.readStream(`resource-${resourceId}`, { fromRevision: 2 });
    const data = row!.data as { vaultId: string; name: string; sealedData: string };
    const newest = { version: 3, vaultId: data.vaultId, name: data.name, schemaRef: PERSON, sealedData: data.sealedData };
    expect(contentOf(await readSourceVersion(deps, resourceId, 3, null, newest))).to.deep.equal({
      name: 'v3',
      schemaRef: PERSON,
      data: { n: 3 },
    });
    expect(eventsRead).to.equal(0);
    expect(contentOf(await readSourceVersion(deps, resourceId, 2, null, newest))).to.deep.equal({
      name: 'v2',
      schemaRef: PERSON,
      data: { n: 2 },
    });
    expect(eventsRead).to.equal(3);
  });

  it("the newest version read with its grant, its vault's key erased since, is nothing to keep", async () => {
    const resourceId = await documentOf(1);
    const [row] = await store.readStream(`resource-${resourceId}`);
    const data = row!.data as { vaultId: string; name: string; sealedData: string };
    await deps.keyring.erase(data.vaultId);
    const newest = { version: 1, vaultId: data.vaultId, name: data.name, schemaRef: PERSON, sealedData: data.sealedData };
    expect(await readSourceVersion(deps, resourceId, 1, null, newest)).to.equal(null);
  });

  it('every version, early or late, opens to its own content with the schema the document was created with', async () => {
    const resourceId = await documentOf(40);
    for (const version of [1, 2, 15, 16, 17, 18, 39]) {
      expect(contentOf(await readSourceVersion(deps, resourceId, version)), `version ${version}`).to.deep.equal({
        name: `v${version}`,
        schemaRef: PERSON,
        data: { n: version },
      });
    }
  });

  it('no version of a deleted document can be kept, however long before the deletion it was published', async () => {
    const resourceId = await documentOf(30, { deleted: true });
    for (const version of [1, 20, 30, 31, 40])
      expect(await readSourceVersion(deps, resourceId, version), `version ${version}`).to.equal(null);
  });

  it('a version never published reads as nothing', async () => {
    const resourceId = await documentOf(20);
    for (const version of [0, 21, 1.5]) expect(await readSourceVersion(deps, resourceId, version), `version ${version}`).to.equal(null);
  });

  it('a stream whose revisions and versions part (the service never writes one) fails the read rather than hide a deletion', async () => {
    const resourceId = randomUUID();
    const vaultId = randomUUID();
    // Versions 2 to 30 at revisions 0 to 28: version 20 is not where it must be.
    const events = Array.from({ length: 29 }, (_, i) =>
      newEvent('DocumentUpdated', { resourceId, vaultId, name: 'x', description: null, version: i + 2, sealedData: '' }),
    );
    await store.appendToStream(`resource-${resourceId}`, events, 'no_stream');
    const failed = await readSourceVersion(deps, resourceId, 20).then(
      () => null,
      (e: unknown) => e,
    );
    expect(String(failed)).to.contain('revision 19 is not version 20');
  });

  it("a late version of a file carries the label of the file's first version", async () => {
    const resourceId = randomUUID();
    const vaultId = randomUUID();
    const events = [];
    for (let version = 1; version <= 20; version++) {
      const blobId = randomUUID();
      await deps.blobs.put(
        blobId,
        await deps.keyring.encrypt(vaultId, Buffer.from(`scan ${version}`), fileSealContext(resourceId, version)),
      );
      const data = { resourceId, vaultId, version, blobId, fileName: `scan-${version}.pdf`, mimeType: 'application/pdf', fileSize: 6 };
      events.push(
        version === 1 ? newEvent('FileUploaded', { ...data, label: 'Passport' }) : newEvent('FileVersionAdded', { ...data, label: null }),
      );
    }
    await store.appendToStream(`resource-${resourceId}`, events, 'no_stream');
    const read = await readSourceVersion(deps, resourceId, 20);
    expect(
      read?.kind === 'file' && { name: read.name, label: read.label, fileName: read.fileName, bytes: read.bytes.toString() },
    ).to.deep.equal({
      name: 'Passport',
      label: 'Passport',
      fileName: 'scan-20.pdf',
      bytes: 'scan 20',
    });
  });
});

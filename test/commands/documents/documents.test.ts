import { documentDecider } from '../../../src/commands/documents/document-decider.js';
import { vaultIndex } from '../../../src/commands/documents/vault-index.js';
import type { DocumentCreated, DocumentDeleted } from '../../../src/events/document-events.js';
import type { FileUploaded } from '../../../src/events/file-events.js';
import { specOf } from '../../support/given.js';

const created: DocumentCreated = {
  type: 'DocumentCreated',
  data: {
    resourceId: 'r1',
    vaultId: 'v1',
    name: 'n',
    description: null,
    schemaRef: 'ref',
    documentSchema: null,
    uniquePerVault: false,
    version: 1,
    sealedData: 's1',
  },
};
const deleted: DocumentDeleted = { type: 'DocumentDeleted', data: { resourceId: 'r1', vaultId: 'v1' } };

/** An update or delete by a caller who may change the vault's resources, unless told otherwise. */
const update = (vaultId = 'v1', mayChange = true) => ({
  resourceId: 'r1',
  vaultId,
  mayChange,
  name: null,
  description: undefined,
  sealedFor: (v: number) => `sealed-v${v}`,
});
const remove = (vaultId = 'v1', mayChange = true) => ({ resourceId: 'r1', vaultId, mayChange });

describe('document decisions (spec 4.2 rules 4, 6)', () => {
  const create = specOf(documentDecider, 'CreateDocument');
  const given = { update: specOf(documentDecider, 'UpdateDocument'), delete: specOf(documentDecider, 'DeleteDocument') };

  it('create records version 1 once', () => {
    const { version: _v, ...cmd } = created.data;
    create().when(cmd).then(created);
    create(created).when(cmd).thenRefused('conflict');
  });

  it('update publishes version n+1 with the schema of the stream, sealed for that version', () =>
    given
      .update(created, {
        type: 'DocumentUpdated',
        data: { resourceId: 'r1', vaultId: 'v1', name: 'n', description: null, version: 2, sealedData: 's2' },
      })
      .when(update())
      .then({
        type: 'DocumentUpdated',
        data: { resourceId: 'r1', vaultId: 'v1', name: 'n', description: null, version: 3, sealedData: 'sealed-v3' },
      }));

  it('delete makes the document stop resolving', () => given.delete(created).when(remove()).then(deleted));

  it("update or delete of another vault's or a deleted document is not_found", () => {
    given.update(created).when(update('v2')).thenRefused('not_found');
    given.delete(created).when(remove('v2')).thenRefused('not_found');
    given.update(created, deleted).when(update()).thenRefused('not_found');
    given.delete(created, deleted).when(remove()).thenRefused('not_found');
  });

  it('a caller who may read but not change the vault (a MEMBER of its legal entity) is forbidden to update or delete', () => {
    given
      .update(created)
      .when(update('v1', false))
      .thenRefused('forbidden', /^only a MANAGER of the legal entity may change its resources$/);
    given.delete(created).when(remove('v1', false)).thenRefused('forbidden');
    // A document that is not there is not found, whoever asks.
    given.delete(created, deleted).when(remove('v1', false)).thenRefused('not_found');
  });

  it("a file's id is no document: its stream's events leave the document state empty", () => {
    const file: FileUploaded = {
      type: 'FileUploaded',
      data: { resourceId: 'r1', vaultId: 'v1', version: 1, blobId: 'b', fileName: 'f', mimeType: 'text/plain', fileSize: 1, label: null },
    };
    given.update(file).when(update()).thenRefused('not_found');
    given.delete(file).when(remove()).thenRefused('not_found');
  });

  describe("the vault's index of schemas", () => {
    const reg = (resourceId: string, uniquePerVault: boolean, schemaKey = 'k') => ({
      type: 'DocumentRegistered' as const,
      data: { vaultId: 'v1', resourceId, schemaKey, uniquePerVault },
    });
    const unreg = (resourceId: string) => ({ type: 'DocumentUnregistered' as const, data: { vaultId: 'v1', resourceId } });

    it('uniquePerVault: a live document with the same schema collides when either has the flag', () => {
      const given = specOf(vaultIndex, 'RegisterDocument');
      given(reg('a', true))
        .when({ vaultId: 'v1', resourceId: 'b', schemaKey: 'k', earlierKeys: [], uniquePerVault: false })
        .thenRefused('document_schema_exists', /^document schema already exists in vault$/);
      given(reg('a', false))
        .when({ vaultId: 'v1', resourceId: 'b', schemaKey: 'k', earlierKeys: [], uniquePerVault: true })
        .thenRefused('document_schema_exists');
      given(reg('a', false))
        .when({ vaultId: 'v1', resourceId: 'b', schemaKey: 'k', earlierKeys: [], uniquePerVault: false })
        .then(reg('b', false));
      given(reg('a', true))
        .when({ vaultId: 'v1', resourceId: 'b', schemaKey: 'other', earlierKeys: [], uniquePerVault: true })
        .then(reg('b', true, 'other'));
      given(reg('a', true), unreg('a'))
        .when({ vaultId: 'v1', resourceId: 'b', schemaKey: 'k', earlierKeys: [], uniquePerVault: true })
        .then(reg('b', true));
    });

    it('uniquePerVault (contract §10.13): a built-in registered under an earlier base is the same schema', () => {
      specOf(
        vaultIndex,
        'RegisterDocument',
      )(reg('a', true, 'ref:http://earlier.test/core/X.json'))
        .when({
          vaultId: 'v1',
          resourceId: 'b',
          schemaKey: 'ref:https://later.test/core/X.json',
          earlierKeys: ['ref:http://earlier.test/core/X.json'],
          uniquePerVault: false,
        })
        .thenRefused('document_schema_exists');
    });

    it('a deleted document lets its schema go; one the index does not hold changes nothing', () => {
      const given = specOf(vaultIndex, 'UnregisterDocument');
      given(reg('a', true)).when({ vaultId: 'v1', resourceId: 'a' }).then(unreg('a'));
      given(reg('a', true), unreg('a')).when({ vaultId: 'v1', resourceId: 'a' }).then();
      given(reg('a', true)).when({ vaultId: 'v1', resourceId: 'b' }).then();
    });
  });
});

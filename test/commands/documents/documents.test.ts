import { createDocument } from '../../../src/commands/documents/create-document.js';
import { deleteDocument } from '../../../src/commands/documents/delete-document.js';
import { updateDocument } from '../../../src/commands/documents/update-document.js';
import { vaultIndex } from '../../../src/commands/documents/vault-index.js';
import type { DocumentCreated } from '../../../src/events/document-events.js';
import type { FileUploaded } from '../../../src/events/file-events.js';
import { specFor } from '../../support/given.js';

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

describe('document decisions (spec 4.2 rules 4, 6)', () => {
  it('create records version 1 once', () => {
    const { version: _v, ...cmd } = created.data;
    specFor(createDocument)().when(cmd).then(created);
    specFor(createDocument)(created).when(cmd).thenRefused('conflict');
  });

  it('update publishes version n+1 with the schema of the stream, sealed for that version', () =>
    specFor(updateDocument)(created, {
      type: 'DocumentUpdated',
      data: { resourceId: 'r1', vaultId: 'v1', name: 'n', description: null, version: 2, sealedData: 's2' },
    })
      .when({ resourceId: 'r1', vaultId: 'v1', name: null, description: undefined, sealedFor: (v) => `sealed-v${v}` })
      .then({
        type: 'DocumentUpdated',
        data: { resourceId: 'r1', vaultId: 'v1', name: 'n', description: null, version: 3, sealedData: 'sealed-v3' },
      }));

  it("update or delete of another vault's or a deleted document is not_found", () => {
    specFor(updateDocument)(created)
      .when({ resourceId: 'r1', vaultId: 'v2', name: null, description: undefined, sealedFor: () => 'x' })
      .thenRefused('not_found');
    specFor(deleteDocument)(created).when({ resourceId: 'r1', vaultId: 'v2' }).thenRefused('not_found');
    specFor(deleteDocument)(created, { type: 'DocumentDeleted', data: { resourceId: 'r1', vaultId: 'v1' } })
      .when({ resourceId: 'r1', vaultId: 'v1' })
      .thenRefused('not_found');
  });

  it("a file's id is no document: its stream's events leave the document state empty", () => {
    const file: FileUploaded = {
      type: 'FileUploaded',
      data: { resourceId: 'r1', vaultId: 'v1', version: 1, blobId: 'b', fileName: 'f', mimeType: 'text/plain', fileSize: 1, label: null },
    };
    specFor(updateDocument)(file)
      .when({ resourceId: 'r1', vaultId: 'v1', name: null, description: undefined, sealedFor: () => 'x' })
      .thenRefused('not_found');
    specFor(deleteDocument)(file).when({ resourceId: 'r1', vaultId: 'v1' }).thenRefused('not_found');
  });

  it('uniquePerVault: a live document with the same schema collides when either has the flag', () => {
    const reg = (resourceId: string, uniquePerVault: boolean) => ({
      type: 'DocumentRegistered' as const,
      data: { vaultId: 'v1', resourceId, schemaKey: 'k', uniquePerVault },
    });
    const given = specFor(vaultIndex);
    given(reg('a', true))
      .when({ kind: 'register', vaultId: 'v1', resourceId: 'b', schemaKey: 'k', uniquePerVault: false })
      .thenRefused('document_schema_exists', /^document schema already exists in vault$/);
    given(reg('a', false))
      .when({ kind: 'register', vaultId: 'v1', resourceId: 'b', schemaKey: 'k', uniquePerVault: true })
      .thenRefused('document_schema_exists');
    given(reg('a', false))
      .when({ kind: 'register', vaultId: 'v1', resourceId: 'b', schemaKey: 'k', uniquePerVault: false })
      .then(reg('b', false));
    given(reg('a', true))
      .when({ kind: 'register', vaultId: 'v1', resourceId: 'b', schemaKey: 'other', uniquePerVault: true })
      .then({ type: 'DocumentRegistered', data: { vaultId: 'v1', resourceId: 'b', schemaKey: 'other', uniquePerVault: true } });
    given(reg('a', true), { type: 'DocumentUnregistered', data: { vaultId: 'v1', resourceId: 'a' } })
      .when({ kind: 'register', vaultId: 'v1', resourceId: 'b', schemaKey: 'k', uniquePerVault: true })
      .then(reg('b', true));
  });
});

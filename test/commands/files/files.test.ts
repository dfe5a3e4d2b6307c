import { addFileVersion } from '../../../src/commands/files/add-file-version.js';
import { uploadFile } from '../../../src/commands/files/upload-file.js';
import type { FileUploaded, FileVersionAdded } from '../../../src/events/file-events.js';
import type { DocumentCreated } from '../../../src/events/document-events.js';
import { specFor } from '../../support/given.js';

const uploaded: FileUploaded = {
  type: 'FileUploaded',
  data: {
    resourceId: 'f1',
    vaultId: 'v1',
    version: 1,
    blobId: 'b1',
    fileName: 'scan.pdf',
    mimeType: 'application/pdf',
    fileSize: 10,
    label: 'Passport',
  },
};
const versionTwo: FileVersionAdded = {
  type: 'FileVersionAdded',
  data: { ...uploaded.data, version: 2, blobId: 'b2', fileName: 'scan.png', mimeType: 'image/png', fileSize: 20 },
};
const add = (version: number, vaultId = 'v1') => ({
  resourceId: 'f1',
  vaultId,
  version,
  blobId: `b${version}`,
  fileName: 'new.txt',
  mimeType: 'text/plain',
  fileSize: 3,
});

describe('file decisions (contract 6)', () => {
  it('upload records version 1 of a new resource, once', () => {
    const { version: _v, ...cmd } = uploaded.data;
    specFor(uploadFile)().when(cmd).then(uploaded);
    specFor(uploadFile)(uploaded).when(cmd).thenRefused('conflict');
  });

  it("a new version is n+1 with its own name, type, size and blob; the label stays the file's", () =>
    specFor(addFileVersion)(uploaded, versionTwo)
      .when(add(3))
      .then({
        type: 'FileVersionAdded',
        data: {
          resourceId: 'f1',
          vaultId: 'v1',
          version: 3,
          blobId: 'b3',
          fileName: 'new.txt',
          mimeType: 'text/plain',
          fileSize: 3,
          label: 'Passport',
        },
      }));

  it('bytes sealed for a version another upload took are refused as conflict, to be sealed again', () => {
    specFor(addFileVersion)(uploaded, versionTwo).when(add(2)).thenRefused('conflict');
    specFor(addFileVersion)(uploaded).when(add(3)).thenRefused('conflict');
  });

  it('a file of another vault, an unknown one, or a document is not_found', () => {
    specFor(addFileVersion)(uploaded)
      .when(add(2, 'v2'))
      .thenRefused('not_found', /^no such file$/);
    specFor(addFileVersion)().when(add(1)).thenRefused('not_found');
    const document: DocumentCreated = {
      type: 'DocumentCreated',
      data: {
        resourceId: 'f1',
        vaultId: 'v1',
        name: 'n',
        description: null,
        schemaRef: 'ref',
        documentSchema: null,
        uniquePerVault: false,
        version: 1,
        sealedData: 's',
      },
    };
    // The resource-<id> namespace is shared with documents: a document's stream never makes a file.
    specFor(addFileVersion)(document).when(add(2)).thenRefused('not_found');
  });
});

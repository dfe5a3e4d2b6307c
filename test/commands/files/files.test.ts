import { fileDecider } from '../../../src/commands/files/file-decider.js';
import type { FileUploaded, FileVersionAdded } from '../../../src/events/file-events.js';
import type { DocumentCreated } from '../../../src/events/document-events.js';
import { specOf } from '../../support/given.js';

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
/** A new version by a caller who may change the vault's files, unless told otherwise. */
const add = (version: number, vaultId = 'v1', mayChange = true) => ({
  resourceId: 'f1',
  vaultId,
  mayChange,
  version,
  blobId: `b${version}`,
  fileName: 'new.txt',
  mimeType: 'text/plain',
  fileSize: 3,
});

describe('file decisions (contract 6)', () => {
  const upload = specOf(fileDecider, 'UploadFile');
  const addVersion = specOf(fileDecider, 'AddFileVersion');

  it('upload records version 1 of a new resource, once', () => {
    const { version: _v, ...cmd } = uploaded.data;
    upload().when(cmd).then(uploaded);
    upload(uploaded).when(cmd).thenRefused('conflict');
  });

  it("a new version is n+1 with its own name, type, size and blob; the label stays the file's", () =>
    addVersion(uploaded, versionTwo)
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
    addVersion(uploaded, versionTwo).when(add(2)).thenRefused('conflict');
    addVersion(uploaded).when(add(3)).thenRefused('conflict');
  });

  it('a caller who may read but not change the vault (a MEMBER of its legal entity) is forbidden to add a version', () =>
    addVersion(uploaded)
      .when(add(2, 'v1', false))
      .thenRefused('forbidden', /^only a MANAGER of the legal entity may change its files$/));

  it('a file of another vault, an unknown one, or a document is not_found', () => {
    addVersion(uploaded)
      .when(add(2, 'v2'))
      .thenRefused('not_found', /^no such file$/);
    addVersion().when(add(1)).thenRefused('not_found');
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
    addVersion(document).when(add(2)).thenRefused('not_found');
  });
});

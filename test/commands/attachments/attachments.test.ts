import { attachmentDecider } from '../../../src/commands/attachments/add-attachment.js';
import type { AttachmentAdded } from '../../../src/events/attachment-events.js';
import { specOf } from '../../support/given.js';

const added: AttachmentAdded = {
  type: 'AttachmentAdded',
  data: {
    orgFileId: 'f',
    requestId: 'r',
    organizationId: 'o',
    orgVersion: 1,
    blobId: 'b',
    fileName: 'contract.pdf',
    mimeType: 'application/pdf',
    fileSize: 5,
    addedAt: '2026-11-28T10:00:00.000Z',
  },
};

describe("an organization's attachment (R-RFIL-02)", () => {
  const given = specOf(attachmentDecider, 'AddAttachment');
  it('the first version of a new attachment is added', () => given().when(added.data).then(added));
  it('a second add on the same attachment is a conflict', () =>
    given(added)
      .when(added.data)
      .thenRefused('conflict', /exists/));
});

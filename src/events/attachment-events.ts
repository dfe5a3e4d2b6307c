import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';

/**
 * The organization's own attachment to a request (contract §4, R-RFIL-02): one file, its bytes
 * sealed with the organization's key under blobId. Stream `attachment-<orgFileId>`.
 */
export type AttachmentAdded = DomainEvent<
  'AttachmentAdded',
  {
    orgFileId: string;
    requestId: string;
    organizationId: string;
    orgVersion: number;
    blobId: string;
    fileName: string;
    mimeType: string;
    fileSize: number;
    addedAt: string;
  }
>;

export type AttachmentEvent = AttachmentAdded;

export const attachmentEvents = eventDecoder<AttachmentEvent>('attachment', { AttachmentAdded: { version: 1 } });

export const attachmentStream = (orgFileId: string): StreamRef<AttachmentEvent> => streamOf(attachmentEvents, `attachment-${orgFileId}`);

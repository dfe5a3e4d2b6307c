import type { DomainEvent } from './domain-event.js';
import { deterministicUuid } from './deterministic-id.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';

/** The party a kept record answers for (R-REQ-16): null is the recipient's own item. */
export type Participant = { subjectId: string; type: 'legal_entity'; alias: string } | null;

export type KeptKind = 'document' | 'file';

/**
 * The organization's copy chain of one record: `chain-<requestId>-<slotId>-<sourceResourceId>`.
 * It holds only its versions, so orgVersion is revision + 1 and a correction appends with the
 * revision its expectedOrgVersion names: the store itself refuses a stale head.
 */
export const chainStream = (requestId: string, slotId: string, sourceResourceId: string): StreamRef<ChainEvent> =>
  streamOf(chainEvents, `chain-${requestId}-${slotId}-${sourceResourceId}`);

/** The organization's own copy id: one per chain, the same on every instance and after a replay. */
export const orgResourceIdOf = (requestId: string, slotId: string, sourceResourceId: string): string =>
  deterministicUuid('org-copy', `${requestId}/${slotId}/${sourceResourceId}`);

/** One adoption per (request, slot, source record, source version): a retried keep finds its own. */
export const adoptionIdOf = (requestId: string, slotId: string, sourceResourceId: string, sourceVersion: number): string =>
  deterministicUuid('adoption', `${requestId}/${slotId}/${sourceResourceId}/v${sourceVersion}`);

/** What a kept file version records; its bytes sit sealed with the chain's key under blobId. */
export type KeptFile = { blobId: string; fileName: string; mimeType: string; fileSize: number; label: string | null };

/**
 * A version of the person's record, kept as the chain's next version: the data re-sealed with
 * the chain's own key (documents) or the bytes re-sealed into a blob of its own (files). Each
 * chain has a key of its own, kept in the keyring under its orgResourceId, so that deleting one
 * copy (R-ERAS-02) shreds that chain and nothing else of the organization's.
 */
export type CopyKept = DomainEvent<
  'CopyKept',
  {
    adoptionId: string;
    requestId: string;
    organizationId: string;
    slotId: string;
    sourceResourceId: string;
    sourceVersion: number;
    orgResourceId: string;
    orgVersion: number;
    resourceType: KeptKind;
    participant: Participant;
    /** When the keep was asked for; a drained keep keeps the time it was pended. */
    adoptedAt: string;
    materializedAt: string;
    name: string;
    schemaRef: string | null;
    /** Documents: the data sealed with the chain's own key (its orgResourceId in the keyring); null for files. */
    sealedData: string | null;
    file: KeptFile | null;
  }
>;

/** The organization's own revision of a kept document: the chain's next version, origin correction. */
export type CopyCorrected = DomainEvent<
  'CopyCorrected',
  {
    requestId: string;
    organizationId: string;
    slotId: string;
    sourceResourceId: string;
    orgResourceId: string;
    orgVersion: number;
    /** The adoption whose keep this correction follows (the newest keep before it). */
    followsAdoptionId: string;
    correctedAt: string;
    sealedData: string;
  }
>;

/**
 * R-ERAS-02: the organization deleted its copy of the record. The chain's own key is erased, so
 * every version of it, in the log and in the read models, stays sealed for good; the chain ends.
 */
export type CopyDeleted = DomainEvent<
  'CopyDeleted',
  {
    requestId: string;
    organizationId: string;
    slotId: string;
    sourceResourceId: string;
    orgResourceId: string;
    /** The adoption the organization named when it deleted the chain. */
    adoptionId: string;
    deletedAt: string;
  }
>;

export type ChainEvent = CopyKept | CopyCorrected | CopyDeleted;

export const chainEvents = eventDecoder<ChainEvent>('copy chain', {
  CopyKept: { version: 1 },
  CopyCorrected: { version: 1 },
  CopyDeleted: { version: 1 },
});

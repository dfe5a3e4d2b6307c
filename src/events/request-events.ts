import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';
import { acceptedWithBoundedRetention } from './upcasters/request-accepted-v1.js';
import type { KeptKind, Participant } from './copy-events.js';
import type { ConsentLapse } from './consent.js';

/** Stream: `request-<requestId>`: invitation, consent, grants and state changes (DESIGN.md). */
export const requestStream = (requestId: string): StreamRef<RequestEvent> => streamOf(requestEvents, `request-${requestId}`);

/** One standing answer: a resource of the recipient's vault, or of a legal entity they manage. */
export type GrantedRecord = {
  readonly resourceId: string;
  /** null: the recipient's own item; else the entity whose vault holds the resource. */
  readonly entityId: string | null;
};

export type RequestSent = DomainEvent<
  'RequestSent',
  {
    requestId: string;
    organizationId: string;
    manifestId: string;
    /** The manifest's newest version when sent; consent pins this same version. */
    manifestVersion: number;
    recipientEmail: string;
    invitationExpiresAt: string;
    initiatedBy: 'org' | 'recipient';
    initiatingClientId: string | null;
  }
>;
export type RequestCancelled = DomainEvent<'RequestCancelled', { requestId: string }>;
/**
 * retention is the pinned manifest version's ISO 8601 duration; it runs from acceptance.
 * Version 2: retentionMs is at most 100 years (R-LIM-01); version 1 had no bound.
 */
export type RequestAccepted = DomainEvent<
  'RequestAccepted',
  { requestId: string; retention: string; retentionMs: number; acceptedAt: string }
>;
export type RequestRejected = DomainEvent<'RequestRejected', { requestId: string }>;
export type SlotGranted = DomainEvent<'SlotGranted', { requestId: string; slotId: string; records: GrantedRecord[] }>;
export type SlotWithdrawn = DomainEvent<'SlotWithdrawn', { requestId: string; slotId: string }>;
export type RequestRevoked = DomainEvent<'RequestRevoked', { requestId: string }>;
export type RequestSuspended = DomainEvent<'RequestSuspended', { requestId: string }>;
export type RequestResumed = DomainEvent<'RequestResumed', { requestId: string }>;
/**
 * Contract §13, §14: the person approved the organization's app on the hosted consent page, for this
 * request (their consent given there, even on a connection that already stood); the app's grant names it.
 */
export type AppAuthorized = DomainEvent<'AppAuthorized', { requestId: string; clientId: string }>;
/**
 * A keep asked for while the organization key was cold (R-KEEP-08): it waits on the request until
 * a drain keeps it into its chain under the same adoptionId.
 */
export type AdoptionPended = DomainEvent<
  'AdoptionPended',
  {
    requestId: string;
    organizationId: string;
    adoptionId: string;
    slotId: string;
    sourceResourceId: string;
    sourceVersion: number;
    resourceType: KeptKind;
    participant: Participant;
    adoptedAt: string;
  }
>;

/**
 * A pended keep whose consent no longer stood when it was drained (R-CONS-02): it leaves the
 * request's adoptions, and the reason stays in the request's history.
 */
export type AdoptionDiscarded = DomainEvent<
  'AdoptionDiscarded',
  {
    requestId: string;
    organizationId: string;
    adoptionId: string;
    slotId: string;
    sourceResourceId: string;
    sourceVersion: number;
    reason: ConsentLapse;
    discardedAt: string;
  }
>;

/**
 * A newer version of a granted resource on a manual slot (R-PROP-01): one open notice per slot
 * and resource; a newer version closes the open one (superseded) and opens this in its place.
 */
export type ProposalOpened = DomainEvent<
  'ProposalOpened',
  {
    requestId: string;
    organizationId: string;
    proposalId: string;
    slotId: string;
    resourceId: string;
    newVersion: number;
    participant: Participant;
    proposedAt: string;
  }
>;
export type ProposalCloseReason = 'superseded' | 'dismissed' | 'adopted' | 'kept' | 'withdrawn';
export type ProposalClosed = DomainEvent<
  'ProposalClosed',
  { requestId: string; proposalId: string; reason: ProposalCloseReason; closedAt: string }
>;

/** R-PROP-03: a candidate read of the person's record, kept on the request for the person to see. */
export type ReceiptWritten = DomainEvent<
  'ReceiptWritten',
  {
    requestId: string;
    organizationId: string;
    recipientEmail: string;
    resourceId: string;
    version: number;
    /** The app the request came through, when it came through one. */
    clientId: string | null;
    readAt: string;
  }
>;

export type RequestEvent =
  | RequestSent
  | RequestCancelled
  | RequestAccepted
  | RequestRejected
  | SlotGranted
  | SlotWithdrawn
  | RequestRevoked
  | RequestSuspended
  | RequestResumed
  | AppAuthorized
  | AdoptionPended
  | AdoptionDiscarded
  | ProposalOpened
  | ProposalClosed
  | ReceiptWritten;

export const requestEvents = eventDecoder<RequestEvent>('request', {
  RequestSent: { version: 1 },
  RequestCancelled: { version: 1 },
  RequestAccepted: { version: 2, upcasters: { 1: acceptedWithBoundedRetention } },
  RequestRejected: { version: 1 },
  SlotGranted: { version: 1 },
  SlotWithdrawn: { version: 1 },
  RequestRevoked: { version: 1 },
  RequestSuspended: { version: 1 },
  RequestResumed: { version: 1 },
  AppAuthorized: { version: 1 },
  AdoptionPended: { version: 1 },
  AdoptionDiscarded: { version: 1 },
  ProposalOpened: { version: 1 },
  ProposalClosed: { version: 1 },
  ReceiptWritten: { version: 1 },
});

import type { DomainEvent } from '../commands/decider.js';

/** Stream: `request-<requestId>`: invitation, consent, grants and state changes (DESIGN.md). */
export const requestStream = (requestId: string) => `request-${requestId}`;

/** One standing answer: a resource of the recipient's vault, or of a legal entity they manage. */
export type GrantedRecord = {
  readonly resourceId: string;
  /** null: the recipient's own item; else the entity whose vault holds the resource. */
  readonly entityId: string | null;
};

export type RequestSent = DomainEvent<'RequestSent', {
  requestId: string;
  organizationId: string;
  manifestId: string;
  /** The manifest's newest version when sent; consent pins this same version. */
  manifestVersion: number;
  recipientEmail: string;
  invitationExpiresAt: string;
  initiatedBy: 'org' | 'recipient';
  initiatingClientId: string | null;
}>;
export type RequestCancelled = DomainEvent<'RequestCancelled', { requestId: string }>;
/** retention is the pinned manifest version's ISO 8601 duration; it runs from acceptance. */
export type RequestAccepted = DomainEvent<'RequestAccepted', { requestId: string; retention: string; retentionMs: number; acceptedAt: string }>;
export type RequestRejected = DomainEvent<'RequestRejected', { requestId: string }>;
export type SlotGranted = DomainEvent<'SlotGranted', { requestId: string; slotId: string; records: GrantedRecord[] }>;
export type SlotWithdrawn = DomainEvent<'SlotWithdrawn', { requestId: string; slotId: string }>;
export type RequestRevoked = DomainEvent<'RequestRevoked', { requestId: string }>;
export type RequestSuspended = DomainEvent<'RequestSuspended', { requestId: string }>;
export type RequestResumed = DomainEvent<'RequestResumed', { requestId: string }>;

export type RequestEvent =
  | RequestSent | RequestCancelled | RequestAccepted | RequestRejected | SlotGranted | SlotWithdrawn
  | RequestRevoked | RequestSuspended | RequestResumed;

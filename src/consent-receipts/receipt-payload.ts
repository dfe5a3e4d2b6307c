import { createHash } from 'node:crypto';
import type { ReceiptEventType, ReceiptPayload, ReceiptSlot, ReceiptStatus } from '@dss/sdk';
import type { Recorded } from '../events/decoder.js';
import type { ManifestPublished } from '../events/manifest-events.js';
import type { RequestEvent } from '../events/request-events.js';
import { evolveRequest, noRequest } from '../commands/requests/request-state.js';

/** The request events that are consent transitions (contract §14), each issuing one receipt, and the consent's state after it (DPV). */
export const TRANSITIONS: Readonly<Record<ReceiptEventType, ReceiptStatus>> = {
  RequestAccepted: 'dpv:ConsentGiven',
  SlotGranted: 'dpv:ConsentGiven',
  SlotWithdrawn: 'dpv:ConsentGiven',
  AppAuthorized: 'dpv:ConsentGiven',
  RequestSuspended: 'dss:ConsentSuspended',
  RequestResumed: 'dpv:RenewedConsentGiven',
  RequestRevoked: 'dpv:ConsentWithdrawn',
  RequestRejected: 'dpv:ConsentRefused',
};

/**
 * A receipt's payload is the SDK's ReceiptPayload (docs/receipts.md): the type clients verify is the
 * one the service signs, checked when either changes.
 */
export type { ReceiptPayload };

export const isTransition = (type: string): type is ReceiptEventType => Object.hasOwn(TRANSITIONS, type);

/** base64url (no padding) SHA-256 of a text's UTF-8: a receipt's digest (of its compact JWS) and a record's (of its resource id). */
export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');

export type ReceiptPlace = {
  readonly issuer: string;
  readonly receiptId: string;
  readonly seq: number;
  readonly prev: string | null;
  readonly organizationName: string;
  readonly manifest: Pick<ManifestPublished['data'], 'purpose' | 'slots'>;
};

/**
 * The receipt of `cause`, the last of `events` (its request's events up to and including it): the
 * consent as it stands after it. Pure: the same events give the same payload on every replay.
 */
export function receiptPayload(events: readonly Recorded<RequestEvent>[], place: ReceiptPlace): ReceiptPayload {
  const cause = events.at(-1)!;
  if (!isTransition(cause.type)) throw new Error(`${cause.type} is no consent transition`);
  const causeType = cause.type;
  let state = noRequest;
  let retention: string | null = null;
  let initiatedBy: 'org' | 'recipient' = 'org';
  let app: string | null = null;
  const everGranted = new Set<string>();
  for (const e of events) {
    state = evolveRequest(state, e);
    if (e.type === 'RequestSent') [initiatedBy, app] = [e.data.initiatedBy, e.data.initiatingClientId];
    if (e.type === 'RequestAccepted') retention = e.data.retention;
    if (e.type === 'SlotGranted') everGranted.add(e.data.slotId);
    if (e.type === 'AppAuthorized') app = e.data.clientId;
  }
  const slotStatus = (slotId: string): ReceiptSlot['status'] =>
    state.grants.has(slotId) ? 'dpv:ConsentGiven' : everGranted.has(slotId) ? 'dpv:ConsentWithdrawn' : 'dpv:ConsentRequested';
  return {
    iss: place.issuer,
    jti: place.receiptId,
    iat: Math.floor(Date.parse(cause.metadata.occurredAt) / 1000),
    request: state.requestId,
    seq: place.seq,
    prev: place.prev,
    event: { id: cause.metadata.eventId, type: causeType, at: cause.metadata.occurredAt },
    status: TRANSITIONS[causeType],
    controller: { id: state.organizationId, name: place.organizationName },
    purpose: place.manifest.purpose,
    retention,
    manifest: { id: state.manifestId, version: state.manifestVersion },
    initiatedBy,
    app,
    slots: place.manifest.slots.map((slot) => ({
      id: slot.slotId,
      label: slot.label,
      status: slotStatus(slot.slotId),
      records: (state.grants.get(slot.slotId) ?? []).map((r) => sha256(r.resourceId)),
    })),
  };
}

import type { GrantedRecord, RequestEvent } from '../../events/request-events.js';
import { noVersions, withoutVersion, withVersion, type VersionSet } from '../version-set.js';

/** Stored phases; the spec's states add the time-based ones at read time (see evaluateState). */
export type Phase = 'none' | 'pending' | 'cancelled' | 'rejected' | 'active' | 'suspended' | 'revoked';

export type RequestState = {
  readonly phase: Phase;
  readonly requestId: string;
  readonly organizationId: string;
  readonly manifestId: string;
  readonly manifestVersion: number;
  readonly recipientEmail: string;
  readonly invitationExpiresAt: string;
  readonly acceptedAt: string | null;
  readonly retentionMs: number | null;
  /** Granted slots and their records, by slot id. */
  readonly grants: ReadonlyMap<string, readonly GrantedRecord[]>;
  /**
   * Keeps pended with a cold key: the source versions of each granted record, by `recordKey`
   * (drained ones stay: the chain decides those; discarded ones leave, so a later keep may pend
   * again). A version names its adoption (adoptionIdOf).
   */
  readonly pended: ReadonlyMap<string, VersionSet>;
  /** Open proposals by id. */
  readonly open: ReadonlyMap<string, OpenProposal>;
  /**
   * The newest version ever proposed of each granted record, by `recordKey`: as many entries as
   * the request has records, however many proposals it has had, so a long-lived request's state
   * stays as small as its grants (and within what the fold cache keeps).
   */
  readonly proposed: ReadonlyMap<string, number>;
};

/** A granted record as `pended` and `proposed` know it: a slot and a resource. */
export const recordKey = (slotId: string, resourceId: string): string => `${slotId}/${resourceId}`;

/** The newest version of a record ever proposed on the request; 0 for none. */
export const proposedVersion = (state: RequestState, slotId: string, resourceId: string): number =>
  state.proposed.get(recordKey(slotId, resourceId)) ?? 0;

/** The versions of a record pended on the request. */
export const pendedVersions = (state: RequestState, slotId: string, resourceId: string): VersionSet =>
  state.pended.get(recordKey(slotId, resourceId)) ?? noVersions;

export type OpenProposal = { readonly slotId: string; readonly resourceId: string; readonly newVersion: number };

export const noRequest: RequestState = {
  phase: 'none',
  requestId: '',
  organizationId: '',
  manifestId: '',
  manifestVersion: 0,
  recipientEmail: '',
  invitationExpiresAt: '',
  acceptedAt: null,
  retentionMs: null,
  grants: new Map(),
  pended: new Map(),
  open: new Map(),
  proposed: new Map(),
};

export function evolveRequest(state: RequestState, event: RequestEvent): RequestState {
  switch (event.type) {
    case 'RequestSent': {
      const d = event.data;
      return {
        ...noRequest,
        phase: 'pending',
        requestId: d.requestId,
        organizationId: d.organizationId,
        manifestId: d.manifestId,
        manifestVersion: d.manifestVersion,
        recipientEmail: d.recipientEmail,
        invitationExpiresAt: d.invitationExpiresAt,
      };
    }
    case 'RequestCancelled':
      return { ...state, phase: 'cancelled' };
    case 'RequestRejected':
      return { ...state, phase: 'rejected' };
    case 'RequestAccepted':
      return { ...state, phase: 'active', acceptedAt: event.data.acceptedAt, retentionMs: event.data.retentionMs };
    case 'SlotGranted':
      return { ...state, grants: new Map(state.grants).set(event.data.slotId, event.data.records) };
    case 'SlotWithdrawn': {
      const grants = new Map(state.grants);
      grants.delete(event.data.slotId);
      return { ...state, grants };
    }
    case 'RequestRevoked':
      return { ...state, phase: 'revoked' };
    case 'RequestSuspended':
      return { ...state, phase: 'suspended' };
    case 'RequestResumed':
      return { ...state, phase: 'active' };
    case 'AdoptionPended': {
      const { slotId, sourceResourceId, sourceVersion } = event.data;
      const versions = withVersion(pendedVersions(state, slotId, sourceResourceId), sourceVersion);
      return { ...state, pended: new Map(state.pended).set(recordKey(slotId, sourceResourceId), versions) };
    }
    case 'AdoptionDiscarded': {
      const { slotId, sourceResourceId, sourceVersion } = event.data;
      const versions = withoutVersion(pendedVersions(state, slotId, sourceResourceId), sourceVersion);
      return { ...state, pended: new Map(state.pended).set(recordKey(slotId, sourceResourceId), versions) };
    }
    case 'ProposalOpened': {
      const { proposalId, slotId, resourceId, newVersion } = event.data;
      const newest = Math.max(proposedVersion(state, slotId, resourceId), newVersion);
      return {
        ...state,
        open: new Map(state.open).set(proposalId, { slotId, resourceId, newVersion }),
        proposed: new Map(state.proposed).set(recordKey(slotId, resourceId), newest),
      };
    }
    case 'ReceiptWritten':
    case 'AppAuthorized':
      return state;
    case 'ProposalClosed': {
      const open = new Map(state.open);
      open.delete(event.data.proposalId);
      return { ...state, open };
    }
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

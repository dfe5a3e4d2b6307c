/**
 * R-REQ-11: a request's state is evaluated at call time. A pending invitation
 * past its window reads expired; an active or suspended connection past the retention of the
 * accepted terms reads expired; a revoked one stays revoked.
 */
export const REQUEST_STATES = [
  'pending',
  'active',
  'suspended',
  'revoked',
  'rejected_by_recipient',
  'rejected_by_sender',
  'expired',
] as const;
export type RequestStateName = (typeof REQUEST_STATES)[number];
export const isRequestState = (name: string): name is RequestStateName => (REQUEST_STATES as readonly string[]).includes(name);

export type StoredPhase = 'pending' | 'cancelled' | 'rejected' | 'active' | 'suspended' | 'revoked';

export type StateInputs = {
  readonly phase: StoredPhase;
  readonly invitationExpiresAt: string;
  readonly acceptedAt: string | null;
  readonly retentionMs: number | null;
};

export function evaluateState(r: StateInputs, now: Date): RequestStateName {
  const t = now.getTime();
  switch (r.phase) {
    case 'pending':
      return Date.parse(r.invitationExpiresAt) <= t ? 'expired' : 'pending';
    case 'cancelled':
      return 'rejected_by_sender';
    case 'rejected':
      return 'rejected_by_recipient';
    case 'revoked':
      return 'revoked';
    case 'active':
    case 'suspended': {
      const pastRetention = r.acceptedAt !== null && r.retentionMs !== null && Date.parse(r.acceptedAt) + r.retentionMs <= t;
      return pastRetention ? 'expired' : r.phase;
    }
  }
}

/** R-REQ-18: a granted record's unavailability, as the consent gate names it (commands/requests/consent-gate.ts). */
export type RecordReason = 'connection_inactive' | 'source_unavailable' | 'participant_ineligible';

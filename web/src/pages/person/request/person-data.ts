import type { SlotView } from '../../../consent/consent-summary';
import type { HistoryEntry } from '../../../history';

/** The person's Request (GraphQL `Request`) as the request pages read it. */
export type PersonRequest = {
  readonly requestId: string;
  readonly organizationId: string;
  readonly organizationName: string;
  readonly manifestName: string;
  readonly state: string;
  readonly createdAt: string;
  readonly invitationExpiresAt: string | null;
  readonly purpose: string;
  readonly retention: string;
  readonly items: readonly RequestItem[];
};

export type RequestItem = SlotView & { readonly slotId: string; readonly status: string; readonly resourceIds: readonly string[] };

export const REQUEST_FIELDS = `requestId organizationId organizationName manifestName state createdAt invitationExpiresAt purpose retention
  items { slotId label group subject multiple kind target verbs adoption required status resourceIds }`;

/** States in which the person has an answer to give (an invitation) or a connection to manage. */
export const isInvitation = (state: string): boolean => state === 'pending';
export const isLive = (state: string): boolean => state === 'active' || state === 'suspended';

/** Requests the person may have said yes to: neither waiting for an answer nor refused by either side. */
export const mayHaveAccepted = (r: PersonRequest): boolean =>
  !isInvitation(r.state) && r.state !== 'rejected_by_recipient' && r.state !== 'rejected_by_sender';

/**
 * Whether the person accepted the request at some point. `expired` is both an invitation left
 * unanswered and a connection past its retention (R-REQ-11): only a grant or the history tells them apart.
 */
export function wasAccepted(r: PersonRequest, history: readonly HistoryEntry[]): boolean {
  if (r.state !== 'expired') return mayHaveAccepted(r);
  return r.items.some((i) => i.status === 'granted') || history.some((e) => e.type === 'RequestAccepted');
}

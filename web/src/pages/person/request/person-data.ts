import { graphql, Refused } from '../../../api';
import { toSignIn } from '../../../navigation';
import type { SlotView } from '../../../consent/consent-summary';

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

/** A candidate read of the person's records by an organization (R-PROP-03). */
export type Receipt = { readonly resourceId: string; readonly version: number; readonly organizationId: string; readonly readAt: string };

export const REQUEST_FIELDS = `requestId organizationId organizationName manifestName state createdAt invitationExpiresAt purpose retention
  items { slotId label group subject multiple kind target verbs adoption required status resourceIds }`;

/** States in which the person has an answer to give (an invitation) or a connection to manage. */
export const isInvitation = (state: string): boolean => state === 'pending';
export const isLive = (state: string): boolean => state === 'active' || state === 'suspended';

/**
 * A person's GraphQL call from a page: signed out, they go to sign in and come back here (the
 * invitation mail links straight to the request); any other refusal is the service's own words.
 */
export async function personQuery<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  try {
    return await graphql<T>(query, variables);
  } catch (e) {
    if (e instanceof Refused && e.status === 401) toSignIn();
    throw e;
  }
}

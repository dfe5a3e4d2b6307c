/**
 * Every id the service hands out is a UUID (R-HTTP-11). A string that is not one names
 * nothing: callers answer not_found without asking the database, which would reject it.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (s: string): boolean => UUID.test(s);

declare const idKind: unique symbol;

/** An id parsed once at the edge: a UUID in its one form (lower case), naming one kind of thing. */
export type Id<K extends string> = string & { readonly [idKind]: K };
export type RequestId = Id<'request'>;
export type SlotId = Id<'slot'>;
export type ProposalId = Id<'proposal'>;
export type AdoptionId = Id<'adoption'>;
export type ResourceId = Id<'resource'>;
export type WebhookId = Id<'webhook'>;
/** An event of the events feed (contract §12), or a webhook's test event: what a delivery delivers. */
export type FeedEventId = Id<'feed-event'>;

/** The id in its one form, or null when it is no UUID and so names nothing (R-HTTP-11). */
export function parseId<K extends string>(raw: string): Id<K> | null {
  const id = raw.toLowerCase();
  return isUuid(id) ? (id as Id<K>) : null;
}

/**
 * One entry of a request's audit history (R-HIST-01), the same on both planes (the organization's
 * /history route and the person's user.requestHistory): an event of the request or of one of its copy chains.
 */
export type HistoryEntry = {
  readonly position: string;
  readonly type: string;
  readonly occurredAt: string;
  /** member:<pseudonym>, recipient or system (R-HIST-03). */
  readonly actor: string;
  readonly versions: Readonly<Record<string, string | number>>;
};

/** The fields of a HistoryEntry, for a GraphQL selection. */
export const HISTORY_FIELDS = 'position type occurredAt actor versions';

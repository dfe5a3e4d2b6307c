/**
 * One entry of a request's audit history (R-HIST-01) as the person's user.requestHistory answers it (the
 * organization's /history route answers the same, typed by @dss/sdk): an event of the request or of one of its copy chains.
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

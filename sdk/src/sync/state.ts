import type { Candidate, Proposal } from '../client.js';

/** What a sync keeps between runs: a file's worth of JSON (fileStore) or anything that saves it whole. */
export type SyncState = {
  readonly format: 1;
  /** The feed's cursor: every event before it is handled, or its request is in `dirty`. */
  readonly cursor: string | null;
  /** Requests to reconcile, in the order their events came. */
  readonly dirty: readonly string[];
  /**
   * Decisions on proposals taken and not yet known to be done. Written before the call, so a run
   * that dies between the decision and the answer finishes it when resumed and asks nothing twice.
   */
  readonly intents: readonly Intent[];
  /** Per `${requestId}/${resourceId}`, the newest source version dismissed: not kept again by sync. */
  readonly dismissed: Readonly<Record<string, number>>;
  /** Requests with proposals the callback left for later: reconciled again on the next run. */
  readonly later: readonly string[];
  /** What the organization uses today, per request. */
  readonly view: Readonly<Record<string, RequestView>>;
};

export type Intent = {
  readonly requestId: string;
  readonly proposalId: string;
  readonly resourceId: string;
  readonly newVersion: number;
  readonly decision: 'adopt' | 'dismiss';
};

/** One request as the organization uses it today (the spec's sync procedure, step "read copies"). */
export type RequestView = {
  readonly requestId: string;
  readonly state: string;
  /** Per slot and participant, the head of the newest kept copy. */
  readonly held: readonly Held[];
  /** Records the last keep could not take, with why. */
  readonly skipped: readonly { readonly slotId: string; readonly resourceId: string; readonly reason: string; readonly message: string }[];
  /** Keeps waiting for a warm key (auto slots, or keeps made while it was cold). */
  readonly pending: number;
};

export type Held = {
  readonly slotId: string;
  /** The party's alias; null for the person's own records. */
  readonly participant: string | null;
  readonly resourceId: string;
  /** The person's version the copy was kept from. */
  readonly sourceVersion: number;
  /** The head of the copy's chain, and whether it is the organization's correction. */
  readonly orgVersion: number;
  readonly origin: 'copy' | 'correction';
  readonly data: unknown;
  readonly adoptionId: string;
};

export const EMPTY_STATE: SyncState = { format: 1, cursor: null, dirty: [], intents: [], dismissed: {}, later: [], view: {} };

/** Asked of each open proposal: keep its version, dismiss it, or leave it open for a later run. */
export type Decide = (proposal: {
  readonly requestId: string;
  readonly proposal: Proposal;
  /** The copy the organization uses today for the proposal's slot and participant, if any. */
  readonly current: Held | undefined;
  /** Reads the proposed version; it writes a read receipt on the person's side, so only when needed. */
  readonly candidate: () => Promise<Candidate>;
}) => 'adopt' | 'dismiss' | 'later' | Promise<'adopt' | 'dismiss' | 'later'>;

/** Where a sync keeps its state; `save` must replace it whole or not at all. */
export interface SyncStore {
  load(): Promise<SyncState | undefined>;
  save(state: SyncState): Promise<void>;
}

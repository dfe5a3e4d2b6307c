import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import type { Slot } from '../events/manifest-events.js';
import type { RequestId, SlotId } from '../ids.js';
import type { KeyRow, KeyState } from '../organizations/index.js';
import type { RecordEntry, RecordReader, Standing } from '../requests/request-records.js';
import type { RequestReads } from '../requests/request-reads.js';
import type { StoredKeyJson } from '../vaults/keyring.js';
import type { GrantRow, RequestRow } from '../requests/request-queries.js';
import { slotsOf, stateOf } from '../requests/request-view.js';

export type SlotAccessDeps = {
  readonly reads: RequestReads;
  readonly records: RecordReader;
  /** Whether the organization's key is warm now (key-warmth.ts), from its columns read with the organization's request (RequestRow). */
  readonly keyStateOf: (row: KeyRow) => KeyState;
  readonly now: () => Date;
};

/** A slot of a request the organization owns: where each granted record stands now (the consent gate's answer), and its grants as read. */
export type SlotInView = {
  readonly row: RequestRow;
  readonly slot: Slot;
  readonly records: readonly RecordEntry[];
  readonly grants: readonly GrantRow[];
  /** Which of the request's parties the recipient manages now: the rest of the gate's facts. */
  readonly standing: Standing;
  /** The stored key of the vault slotIn was asked to read along, when it was ([] when it has none). */
  readonly storedKeys?: readonly StoredKeyJson[];
};

/** What every copy and proposal route asks first: is the request the organization's, is its key warm, which slot. */
export class SlotAccess {
  constructor(private readonly deps: SlotAccessDeps) {}

  /** R-KEEP-10: whether the organization's key is warm, from its columns read with the request. */
  warm(row: RequestRow): boolean {
    return this.deps.keyStateOf(row).state === 'warm';
  }

  /** The request, owned (else 404) with its key warm (else 423). */
  async ownedWarm(organizationId: string, requestId: RequestId): Promise<RequestRow | Refusal> {
    const row = await this.deps.reads.owned(organizationId, requestId);
    if (isRefusal(row)) return row;
    return this.warm(row) ? row : sealed();
  }

  /**
   * The slot of a request the organization owns; its grants are read with the request, in the same
   * query, and so is the stored key of vault `keyOf` when given (SlotInView.storedKeys).
   */
  async slotIn(organizationId: string, requestId: RequestId, slotId: SlotId, keyOf?: string): Promise<SlotInView | Refusal> {
    const found = await this.deps.reads.slotOfOrganization(organizationId, requestId, slotId, keyOf);
    if (!found) return refuse('not_found', 'no such request');
    const view = await this.viewOf(found.row, slotId, found.grants);
    return found.keys && !isRefusal(view) ? { ...view, storedKeys: found.keys } : view;
  }

  /** A slot of `row`, a request the organization owns, with where each of its granted records stands now. */
  async viewOf(row: RequestRow, slotId: string, grants: readonly GrantRow[]): Promise<SlotInView | Refusal> {
    const slot = slotsOf(row).find((s) => s.slotId === slotId);
    if (!slot) return refuse('not_found', 'no such slot in the manifest version this request pins');
    const standing = await this.deps.records.standing(row, grants);
    return { row, slot, records: this.deps.records.records(row, stateOf(row, this.deps.now()), slot, grants, standing), grants, standing };
  }
}

export const sealed = (): Refusal => refuse('org_sealed', 'the organization key is cold: a member must sign in first');

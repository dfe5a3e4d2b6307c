import type { ChainEvent, CopyKept } from '../../events/copy-events.js';

/**
 * One record's copy chain: its head, the source versions kept into it, and its newest keep. A keep's
 * other fields (request, organization, slot, source resource, orgResourceId) are the chain's own,
 * the same in every keep: only the newest is held whole, so a long chain stays small in memory.
 */
export type ChainState = {
  /** The chain's newest orgVersion; 0 while nothing was kept. */
  readonly head: number;
  readonly headOrigin: 'copy' | 'correction' | null;
  /** Source version → the adoption that kept it. */
  readonly keeps: ReadonlyMap<number, string>;
  /** The keep the head follows: the newest keep, however many corrections came after it; null once deleted. */
  readonly lastKeep: CopyKept['data'] | null;
  /** The organization deleted this copy (R-ERAS-02): nothing more is kept or corrected in it. */
  readonly deleted: boolean;
};

export const emptyChain: ChainState = { head: 0, headOrigin: null, keeps: new Map(), lastKeep: null, deleted: false };

export function evolveChain(state: ChainState, event: ChainEvent): ChainState {
  switch (event.type) {
    case 'CopyKept':
      return {
        head: event.data.orgVersion,
        headOrigin: 'copy',
        keeps: new Map(state.keeps).set(event.data.sourceVersion, event.data.adoptionId),
        lastKeep: event.data,
        deleted: false,
      };
    case 'CopyCorrected':
      return { ...state, head: event.data.orgVersion, headOrigin: 'correction' };
    case 'CopyDeleted':
      return { ...state, lastKeep: null, deleted: true };
  }
}

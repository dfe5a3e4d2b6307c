import type { ChainEvent, CopyKept } from '../../events/copy-events.js';
import type { Refusal } from '../refusal.js';
import { noVersions, withVersion, type VersionSet } from '../version-set.js';

/**
 * One record's copy chain: its head, the source versions kept into it, and its newest keep. A keep's
 * other fields (request, organization, slot, source resource, orgResourceId) are the chain's own,
 * the same in every keep: only the newest is held whole, so a long chain stays small in memory.
 */
export type ChainState = {
  /** The chain's newest orgVersion; 0 while nothing was kept. */
  readonly head: number;
  readonly headOrigin: 'copy' | 'correction' | null;
  /**
   * The source versions kept into it. Each one's adoption is named by the version (adoptionIdOf),
   * so the ids need not be held.
   */
  readonly keeps: VersionSet;
  /** The keep the head follows: the newest keep, however many corrections came after it; null once deleted. */
  readonly lastKeep: CopyKept['data'] | null;
  /** The organization deleted this copy (R-ERAS-02): nothing more is kept or corrected in it. */
  readonly deleted: boolean;
};

export const emptyChain: ChainState = { head: 0, headOrigin: null, keeps: noVersions, lastKeep: null, deleted: false };

export function evolveChain(state: ChainState, event: ChainEvent): ChainState {
  switch (event.type) {
    case 'CopyKept':
      return {
        head: event.data.orgVersion,
        headOrigin: 'copy',
        keeps: withVersion(state.keeps, event.data.sourceVersion),
        lastKeep: event.data,
        deleted: false,
      };
    case 'CopyCorrected':
      return { ...state, head: event.data.orgVersion, headOrigin: 'correction' };
    case 'CopyDeleted':
      return { ...state, lastKeep: null, deleted: true };
  }
}

/** One command's decision on a copy chain: the chain decider (chain-decider.ts) switches to it. */
export type ChainDecision<C> = (state: ChainState, command: C) => readonly ChainEvent[] | Refusal;
export const chainDecision = <C>(decide: ChainDecision<C>): ChainDecision<C> => decide;

import type { ChainEvent } from '../../events/copy-events.js';
import type { Decider } from '../decider.js';
import { emptyChain, evolveChain, type ChainState } from './chain-state.js';
import { correctCopy, type CorrectCopy } from './correct-copy.js';
import { deleteCopy, type DeleteCopy } from './delete-copy.js';
import { keepCopy, type KeepCopy } from './keep-copy.js';

/** Every command on a copy chain (`chain-<requestId>-<slotId>-<sourceResourceId>`). */
export type ChainCommand =
  | { readonly type: 'KeepCopy'; readonly data: KeepCopy }
  | { readonly type: 'CorrectCopy'; readonly data: CorrectCopy }
  | { readonly type: 'DeleteCopy'; readonly data: DeleteCopy };

/** The copy chain's one decider: every refusal of a chain command is in the decision it switches to. */
export const chainDecider: Decider<ChainState, ChainCommand, ChainEvent> = {
  initialState: emptyChain,
  evolve: evolveChain,
  decide: (state, command) => {
    switch (command.type) {
      case 'KeepCopy':
        return keepCopy(state, command.data);
      case 'CorrectCopy':
        return correctCopy(state, command.data);
      case 'DeleteCopy':
        return deleteCopy(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};

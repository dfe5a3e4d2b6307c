import { deciderOf, type CommandOf } from '../decider.js';
import { emptyChain, evolveChain } from './chain-state.js';
import { correctCopy } from './correct-copy.js';
import { deleteCopy } from './delete-copy.js';
import { keepCopy } from './keep-copy.js';

const chainDecisions = { KeepCopy: keepCopy, CorrectCopy: correctCopy, DeleteCopy: deleteCopy };

/** Every command on a copy chain (`chain-<requestId>-<slotId>-<sourceResourceId>`). */
export type ChainCommand = CommandOf<typeof chainDecisions>;

/** The copy chain's one decider: every refusal of a chain command is in the decision its type names. */
export const chainDecider = deciderOf(emptyChain, evolveChain, chainDecisions);

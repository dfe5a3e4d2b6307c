import type { ConsentReceiptEvent, ConsentReceiptIssued } from '../../events/consent-receipt-events.js';
import type { Refusal } from '../refusal.js';

/** A request's receipt chain: how long it is, its last receipt's digest, and the events it has receipted. */
export type ReceiptChain = { readonly seq: number; readonly digest: string | null; readonly causes: ReadonlySet<string> };

export const noReceipts: ReceiptChain = { seq: 0, digest: null, causes: new Set() };

export function evolveReceiptChain(state: ReceiptChain, event: ConsentReceiptEvent): ReceiptChain {
  switch (event.type) {
    case 'ConsentReceiptIssued':
      return { seq: event.data.seq, digest: event.data.digest, causes: new Set(state.causes).add(event.data.causeEventId) };
    default: {
      // A union of one type does not narrow to never; its type tag does.
      const unknown: never = event.type;
      return unknown;
    }
  }
}

/** One command's decision on a receipt chain: the consent receipt decider switches to it. */
export type ReceiptChainDecision<C> = (state: ReceiptChain, command: C) => readonly ConsentReceiptIssued[] | Refusal;
export const receiptChainDecision = <C>(decide: ReceiptChainDecision<C>): ReceiptChainDecision<C> => decide;

import type { ReceiptWritten, RequestEvent } from '../../events/request-events.js';
import { refuse, type Refusal } from '../refusal.js';
import { consentLapse, lapseRefusal, LAPSE_MESSAGES, type ConsentFacts } from './consent-gate.js';
import { requestDecision, type At } from './request-rules.js';

/**
 * An organization's app reads a record of the connection it was granted through the partner plane
 * (contract §13), decided on the consent facts read at the moment of the read; every read leaves a
 * receipt on the person's side, attributed to the app.
 */
export type ReadRecord = At &
  ConsentFacts & {
    readonly requestId: string;
    readonly receipt: ReceiptWritten['data'];
  };

/**
 * The consent gate (R-CONS-01) for the partner plane: a connection no longer active ends the
 * grant (401, contract §13); a record not granted on the connection is not there (404); the rest
 * as every other use of a record refuses it.
 */
export const readRecord = requestDecision<ReadRecord>((_s, cmd): readonly RequestEvent[] | Refusal => {
  const lapse = consentLapse(cmd);
  if (lapse === 'connection_inactive') return refuse('unauthenticated', `the grant ended: ${LAPSE_MESSAGES[lapse]}`);
  if (lapse === 'not_granted') return refuse('not_found', 'no such record on this connection');
  if (lapse !== null) return lapseRefusal(lapse);
  return [{ type: 'ReceiptWritten', data: cmd.receipt }];
});

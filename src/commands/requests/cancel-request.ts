import { requestDecision, requireState, type At } from './request-rules.js';

/** The org side: pending becomes rejected_by_sender; any other state answers 409 (R-REQ-05). */
export const cancelRequest = requestDecision<At>(
  (s, cmd) => requireState(s, cmd.now, ['pending'], 'cancel') ?? [{ type: 'RequestCancelled', data: { requestId: s.requestId } }],
);

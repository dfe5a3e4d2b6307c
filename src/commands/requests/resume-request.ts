import { requestDecision, requireState, type At } from './request-rules.js';

/** suspended → active. */
export const resumeRequest = requestDecision<At>(
  (s, cmd) => requireState(s, cmd.now, ['suspended'], 'resume') ?? [{ type: 'RequestResumed', data: { requestId: s.requestId } }],
);

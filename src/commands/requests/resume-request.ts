import { requestDecider, requireState, type At } from './request-decider.js';

/** suspended → active. */
export const resumeRequest = requestDecider<At>(
  (s, cmd) => requireState(s, cmd.now, ['suspended'], 'resume') ?? [{ type: 'RequestResumed', data: { requestId: s.requestId } }],
);

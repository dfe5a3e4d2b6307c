import { requestDecision, requireState, type At } from './request-rules.js';

export type AuthorizeApp = At & { readonly clientId: string };

/**
 * Contract §13: the person approves an app on the hosted consent page; only a connection that is
 * active can be given to an app (a suspended one is the person's pause, R-PART-04).
 */
export const authorizeApp = requestDecision<AuthorizeApp>(
  (s, cmd) =>
    requireState(s, cmd.now, ['active'], 'give an app') ?? [
      { type: 'AppAuthorized', data: { requestId: s.requestId, clientId: cmd.clientId } },
    ],
);

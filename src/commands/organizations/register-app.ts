import { isRefusal } from '../refusal.js';
import { actingAs, organizationDecision } from './organization-state.js';

export type RegisterApp = {
  readonly organizationId: string;
  readonly actorEmail: string;
  readonly clientId: string;
  readonly name: string;
};

/** POST /org/v1/apps: an app for recipient-initiated requests; each call registers a new one. */
export const registerApp = organizationDecision<RegisterApp>((state, cmd) => {
  const org = actingAs(state, cmd.actorEmail, 'member_manage');
  if (isRefusal(org)) return org;
  return [{ type: 'AppRegistered', data: { organizationId: org.organizationId, clientId: cmd.clientId, name: cmd.name } }];
});

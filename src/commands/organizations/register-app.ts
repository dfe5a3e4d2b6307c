import { clientFields, type OAuthClientMetadata } from '../../organizations/app-metadata.js';
import { isRefusal } from '../refusal.js';
import { actingAs, organizationDecision } from './organization-state.js';

export type RegisterApp = {
  readonly organizationId: string;
  readonly actorEmail: string;
  readonly clientId: string;
  readonly name: string;
  /** Contract §13: what the authorization server needs, checked at the edge (R-ORG-16, R-ORG-17); null for a plain app. */
  readonly client: OAuthClientMetadata | null;
};

/** POST /org/v1/apps: an app for recipient-initiated requests, and with metadata an OAuth client; each call registers a new one. */
export const registerApp = organizationDecision<RegisterApp>((state, cmd) => {
  const org = actingAs(state, cmd.actorEmail, 'member_manage');
  if (isRefusal(org)) return org;
  return [
    {
      type: 'AppRegistered',
      data: { organizationId: org.organizationId, clientId: cmd.clientId, name: cmd.name, ...clientFields(cmd.client) },
    },
  ];
});

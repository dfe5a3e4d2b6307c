import type { SqlDb } from '../db/sql.js';
import type { Logger } from '../logger.js';
import { SubjectAliases } from '../requests/participant-alias.js';
import type { PersonRequests } from '../requests/person-requests.js';
import type { OAuthClient } from '../organizations/index.js';
import { authorizationServer, type AuthorizationServer } from './authorization-server.js';
import { ConsentInteraction } from './consent-interaction.js';
import { OAuthStore } from './oauth-store.js';
import { outboundFetch } from './outbound-fetch.js';
import { PartnerSignIn, type PartnerSignInDeps } from './partner-sign-in.js';
import { PartnerPlane, type PartnerPlaneDeps } from './partner-plane.js';

export { type AuthorizationServer } from './authorization-server.js';
export { ConsentInteraction } from './consent-interaction.js';
export { OAuthStore } from './oauth-store.js';
export { PartnerSignIn } from './partner-sign-in.js';
export { PartnerPlane, type PartnerGrant } from './partner-plane.js';

export type PartnerDeps = PartnerPlaneDeps & {
  readonly identities: PartnerSignInDeps['identities'];
  /** OAUTH_ALLOW_LOOPBACK_HTTP: an organization's identity provider may be on this machine's loopback (development). */
  readonly loopbackHttp: boolean;
  readonly db: SqlDb;
  readonly baseUrl: string;
  /** The service vault's data key: the authorization server's keys and the people's subjects derive from it. */
  readonly rootKey: Buffer;
  readonly clients: (clientId: string) => Promise<OAuthClient | null>;
  readonly manifestOf: (organizationId: string, manifestId: string) => Promise<boolean>;
  readonly personRequests: Pick<PersonRequests, 'open' | 'mine' | 'authorizeApp'>;
  readonly trustProxy: boolean;
  readonly logger: Logger;
};

/** The partner plane (contract §13): the authorization server, its consent interaction, and /partner/v1's reads. */
export type Partner = {
  readonly server: AuthorizationServer;
  readonly store: OAuthStore;
  readonly plane: PartnerPlane;
  readonly consent: ConsentInteraction;
  readonly signIn: PartnerSignIn;
  close(): void;
};

const SWEEP_MS = 10 * 60 * 1000;

export async function openPartner(deps: PartnerDeps): Promise<Partner> {
  const store = await OAuthStore.open(deps.db);
  const plane = new PartnerPlane(deps);
  const server = await authorizationServer({
    baseUrl: deps.baseUrl,
    rootKey: deps.rootKey,
    store,
    clients: deps.clients,
    manifestOf: deps.manifestOf,
    standing: (organizationId, requestId) => plane.standing(organizationId, requestId),
    trustProxy: deps.trustProxy,
    logger: deps.logger,
  });
  const consent = new ConsentInteraction({
    provider: server.provider,
    resource: server.resource,
    requests: deps.personRequests,
    clients: deps.clients,
    subjects: new SubjectAliases(deps.rootKey),
  });
  const signIn = await PartnerSignIn.open({
    db: deps.db,
    baseUrl: deps.baseUrl,
    rootKey: deps.rootKey,
    clients: deps.clients,
    fetch: outboundFetch({ loopback: deps.loopbackHttp }),
    identities: deps.identities,
    logger: deps.logger,
  });
  const sweep = async () => {
    await store.sweep();
    await signIn.sweep();
  };
  const sweeping = setInterval(() => void sweep().catch((err: unknown) => deps.logger.warn({ err }, 'oauth sweep failed')), SWEEP_MS);
  sweeping.unref();
  return { server, store, plane, consent, signIn, close: () => clearInterval(sweeping) };
}

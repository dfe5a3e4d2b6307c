/** The organization plane's domain (R-ORG-*, R-MAN-*): organizations, members, the key, apps, manifests. */
import type { Caller, Me } from '../identity/identity-service.js';
import type { TokenIssuer } from '../identity/tokens/index.js';
import type { CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { Logger } from '../logger.js';
import type { Mailer } from '../mail/index.js';
import { ManifestService } from '../manifests/manifest-service.js';
import { memberTokenSigner } from './member-token.js';
import { OrganizationKey } from './organization-key.js';
import { OrganizationService } from './organization-service.js';
import type { RedirectPolicy } from './app-metadata.js';

export type { KeyState } from './key-warmth.js';
export type { KeyRow } from './organization-queries.js';
export type { Member, MemberView } from './member.js';
export type { AppView, MembershipView, OAuthClient, RegisteredApp } from './organization-service.js';
export type { OAuthClientMetadata, RedirectPolicy } from './app-metadata.js';
export type { ManifestView, SlotView } from '../manifests/manifest-view.js';
export type { MemberToken } from './organization-key.js';
export { retentionProblem } from '../manifests/retention.js';
export { ManifestService, OrganizationKey, OrganizationService };

export type OrganizationPlaneDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly logger: Logger;
  readonly mailer: Mailer;
  /** BASE_URL: mails link to the service's pages there (§11). */
  readonly baseUrl: string;
  readonly now: () => Date;
  readonly issuer: TokenIssuer;
  readonly identities: { liveSessions(caller: Caller): Promise<Me['sessions']> };
  /** ORG_KEY_WARM_SECONDS. */
  readonly warmSeconds: number;
  /** Defaults to now(): sign-ins before it leave the key cold (see key-warmth.ts). */
  readonly startedAt?: Date;
  /** OAUTH_ALLOW_LOOPBACK_HTTP. */
  readonly redirectPolicy: RedirectPolicy;
};

export type OrganizationPlane = {
  readonly organizations: OrganizationService;
  readonly key: OrganizationKey;
  readonly manifests: ManifestService;
  /** What an app's redirect URIs may name: the edge checks them at registration (R-ORG-16). */
  readonly redirectPolicy: RedirectPolicy;
};

export function openOrganizationPlane(deps: OrganizationPlaneDeps): OrganizationPlane {
  const commands = { store: deps.store, waitFor: deps.waitFor };
  return {
    organizations: new OrganizationService({
      ...commands,
      readModels: deps.readModels,
      mailer: deps.mailer,
      logger: deps.logger,
      baseUrl: deps.baseUrl,
    }),
    key: new OrganizationKey({
      ...commands,
      readModels: deps.readModels,
      logger: deps.logger,
      now: deps.now,
      warmSeconds: deps.warmSeconds,
      startedAt: deps.startedAt ?? deps.now(),
      signToken: memberTokenSigner(deps.issuer, deps.identities),
    }),
    manifests: new ManifestService({ ...commands, readModels: deps.readModels, now: deps.now }),
    redirectPolicy: deps.redirectPolicy,
  };
}

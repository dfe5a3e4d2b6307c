import { join } from 'node:path';
import type { Express } from 'express';
import { authenticator } from './api/auth/authenticate.js';
import { authRoutes } from './api/auth/auth-routes.js';
import { jwksRoute } from './api/auth/jwks-route.js';
import { ConsentReceiptIssuer } from './consent-receipts/consent-receipts.js';
import { receiptKeys } from './consent-receipts/receipt-keys.js';
import { openApiRoutes } from './api/openapi/openapi-routes.js';
import { graphqlRoute } from './api/graphql/graphql-route.js';
import { jsonBody } from './api/middleware/json-body.js';
import { underPrefix } from './api/middleware/under-prefix.js';
import { orgRoutes } from './api/org/index.js';
import { partnerSignInRoutes } from './api/partner/partner-sign-in-routes.js';
import { oauthRoutes } from './api/partner/oauth-routes.js';
import { partnerRoutes } from './api/partner/partner-routes.js';
import { openPartner } from './partner/index.js';
import { openOrganizationPlane, type OrganizationService } from './organizations/index.js';
import { AccountErasure } from './identity/account-erasure.js';
import { IdentityService } from './identity/identity-service.js';
import { loadKeys } from './identity/keys/index.js';
import { OtpService } from './identity/otp/otp-service.js';
import { OtpSecrets } from './identity/otp/secrets.js';
import { TokenIssuer, TokenVerifier } from './identity/tokens/index.js';
import { schemasRoutes } from './api/schemas-routes.js';
import { FairUse } from './limits/fair-use.js';
import { forwardedForWarning } from './limits/client-address.js';
import { Allowance } from './limits/allowance.js';
import type { Config } from './config.js';
import { DocumentService } from './documents/document-service.js';
import { fileRoutes } from './api/files/file-routes.js';
import { uploadSlots } from './api/files/upload-slots.js';
import { BlobStore, FileService } from './files/index.js';
import { EntityService, EntityVaultAccess } from './entities/index.js';
import { SchemaValidator, servedSchemaBases } from './schemas/index.js';
import { SERVICE_VAULT_ID, VaultKeyring } from './vaults/keyring.js';
import type { SqlDb } from './db/sql.js';
import type { CommandDeps } from './commands/shell.js';
import type { EventStore } from './events/store.js';
import { openCopies, type Copies } from './copies/index.js';
import { ProposalService } from './proposals/proposal-service.js';
import type { Logger } from './logger.js';
import type { Metrics } from './observability/metrics.js';
import { openMailer, OUTBOX_FILE, type Mailer } from './mail/index.js';
import { InvitationAllowance, openRequestPlane, ParticipantAliases } from './requests/index.js';
import { EventsFeed } from './events-feed/index.js';
import { openWebhooks, type Webhooks } from './webhooks/index.js';
import { SlidingWindows } from './limits/sliding-windows.js';
import { exportRoute } from './api/export/export-route.js';
import { ExportLinks } from './export/export-links.js';
import { ExportTurns } from './export/export-turns.js';
import { exportLines } from './export/export-lines.js';
import { browserSessions, csrfGuard } from './api/web/browser-session.js';
import { webPages } from './api/web/pages.js';

export type DomainDeps = {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: SqlDb;
  readonly store: EventStore;
  readonly waitFor: CommandDeps['waitFor'];
  readonly metrics: Pick<Metrics, 'uploadsInFlight'>;
  /** Tests pass a recording mailer and a hand-moved clock. */
  readonly mailer?: Mailer;
  readonly now?: () => Date;
};

export type DomainServices = {
  /** Mounts every domain route on the app (createApp's `routes` hook). */
  readonly routes: (app: Express) => void;
  readonly identities: IdentityService;
  readonly documents: DocumentService;
  /** Tests erase a vault's key through it (crypto-shredding). */
  readonly keyring: VaultKeyring;
  readonly entities: EntityService;
  /** Keeping copies; the copy workers (src/workers/copy-workers.ts) drive it too. */
  readonly copies: Copies;
  readonly proposals: ProposalService;
  /** The organizations' webhooks; the webhook workers (src/workers/webhook-workers.ts) deliver through it. */
  readonly webhooks: Webhooks;
  /** Organizations, members and apps; the authorization server reads its clients through it (contract §13). */
  readonly organizations: OrganizationService;
  /** Contract §14: the consent receipts; their reactor (src/workers/consent-receipt-workers.ts) issues them through it. */
  readonly consentReceipts: ConsentReceiptIssuer;
  close(): Promise<void>;
};

/** The composition root of the domain: keys, mail, codes, identities, and the routes over them. */
export async function openDomainServices(deps: DomainDeps): Promise<DomainServices> {
  const now = deps.now ?? (() => new Date());
  const keys = await loadKeys(deps.config, deps.logger);
  const mailer = deps.mailer ?? openMailer(deps.config, deps.logger);
  const keyring = await VaultKeyring.open(deps.db, keys.masterKey);
  // Address hashes name streams (email-<hash>): their key must survive MASTER_KEY rotation, so it
  // is the service's own data key, which rotation re-wraps, rather than the master key itself.
  const secrets = new OtpSecrets(await keyring.dataKey(SERVICE_VAULT_ID));
  // Bucket hashes must stay the same across restarts and rotations too, or counts would restart.
  const windows = await SlidingWindows.open(deps.db, await keyring.dataKey(SERVICE_VAULT_ID));
  const otp = await OtpService.open({
    db: deps.db,
    windows,
    secrets,
    mailer,
    now,
    dailyFailureCap: deps.config.otpDailyFailureCap,
    failuresPerAddressAndClientPerDay: deps.config.otpFailuresPerAddressAndClientPerDay,
    sendsPerClientPerHour: deps.config.otpSendsPerClientPerHour,
    failuresPerClientPerHour: deps.config.otpFailuresPerClientPerHour,
  });
  const issuer = new TokenIssuer({ issuer: deps.config.baseUrl, signing: keys.signing, now });
  const verifier = new TokenVerifier({ issuer: deps.config.baseUrl, verifying: keys.verifying, now });
  const identities = new IdentityService({ store: deps.store, waitFor: deps.waitFor, readModels: deps.db, otp, secrets, issuer, now });
  const fairUse = new FairUse(
    {
      token: { perSecond: deps.config.rateLimitTokenPerSecond, burst: deps.config.rateLimitTokenBurst },
      organization: { perSecond: deps.config.rateLimitOrgPerSecond, burst: deps.config.rateLimitOrgBurst },
    },
    now,
  );
  // Contract §11: the pages' session cookie, Secure unless BASE_URL is plain-http localhost.
  const browser = browserSessions(deps.config.baseUrl, now);
  const auth = authenticator(verifier, identities, fairUse, browser);
  const organizationPlane = openOrganizationPlane({
    store: deps.store,
    waitFor: deps.waitFor,
    readModels: deps.db,
    logger: deps.logger,
    mailer,
    baseUrl: deps.config.baseUrl,
    now,
    issuer,
    identities,
    warmSeconds: deps.config.orgKeyWarmSeconds,
    redirectPolicy: { loopbackHttp: deps.config.oauthAllowLoopbackHttp },
  });
  const validator = new SchemaValidator({
    schemaBase: deps.config.schemaBase,
    servedBases: await servedSchemaBases(deps.db, deps.config.schemaBase),
    budgetMs: deps.config.validationBudgetMs,
    maxQueued: deps.config.validationQueueMax,
    maxPerCaller: deps.config.validationMaxPerCaller,
  });
  const entities = new EntityService({ store: deps.store, waitFor: deps.waitFor, readModels: deps.db });
  const access = new EntityVaultAccess(deps.db);
  const documents = new DocumentService({ store: deps.store, waitFor: deps.waitFor, validator, keyring, readModels: deps.db, access });
  const invitations = new InvitationAllowance({
    db: deps.db,
    windows,
    now,
    limits: {
      perMemberPerDay: deps.config.invitesPerMemberPerDay,
      perOrgPerDay: deps.config.invitesPerOrgPerDay,
      perRecipientPerDay: deps.config.invitesPerRecipientPerDay,
    },
  });
  const blobs = await BlobStore.open(deps.db);
  // One count of uploads in flight per instance, whichever route streams them.
  const uploadSlot = uploadSlots(
    { perUser: deps.config.maxUploadsPerUser, total: deps.config.maxUploadsTotal },
    deps.metrics.uploadsInFlight,
  );
  // Contract §14: the receipts' keys derive from the service vault's data key, as the aliases' do.
  const consentReceipts = new ConsentReceiptIssuer({
    store: deps.store,
    waitFor: deps.waitFor,
    readModels: deps.db,
    keys: await receiptKeys(await keyring.dataKey(SERVICE_VAULT_ID), deps.config.receiptKeyGeneration),
    issuer: deps.config.baseUrl,
  });
  // Aliases must stay the same across restarts and MASTER_KEY rotations, as address hashes must.
  const requests = openRequestPlane({
    store: deps.store,
    waitFor: deps.waitFor,
    readModels: deps.db,
    mailer,
    baseUrl: deps.config.baseUrl,
    invitations,
    opens: { allowance: new Allowance({ db: deps.db, windows, now }), perDay: deps.config.opensPerUserPerDay },
    logger: deps.logger,
    now,
    aliasRootKey: await keyring.dataKey(SERVICE_VAULT_ID),
    // The request detail shows the copies' and the proposals' rows; both features are opened below.
    adoptions: (requestId) => copies.reads.adoptionsOf(requestId),
    proposals: (requestId) => proposals.summaries(requestId),
    consentReceipts: (requestId) => consentReceipts.ofRequest(requestId),
  });
  const copies = openCopies({
    store: deps.store,
    waitFor: deps.waitFor,
    readModels: deps.db,
    reads: requests.reads,
    records: requests.records,
    keyring,
    blobs,
    validator,
    keyStateOf: (row) => organizationPlane.key.stateOf(row),
    maxBytes: deps.config.maxFileBytes,
    now,
  });
  const proposals = new ProposalService({
    store: deps.store,
    waitFor: deps.waitFor,
    readModels: deps.db,
    reads: requests.reads,
    records: requests.records,
    access: copies.access,
    keeping: copies.keeping,
    source: { store: deps.store, keyring, blobs },
    validator,
    now,
  });
  const files = new FileService({
    store: deps.store,
    waitFor: deps.waitFor,
    keyring,
    blobs,
    readModels: deps.db,
    access,
    maxBytes: deps.config.maxFileBytes,
  });

  // The feed shows a participant by the alias the request detail shows (R-REQ-16).
  const feed = new EventsFeed(deps.db, new ParticipantAliases(await keyring.dataKey(SERVICE_VAULT_ID)));
  // Webhooks deliver the feed's events (contract §12); WEBHOOK_ALLOW_PRIVATE says whom they may reach.
  const webhooks = await openWebhooks({
    store: deps.store,
    waitFor: deps.waitFor,
    db: deps.db,
    keyring,
    feed,
    organizations: organizationPlane.organizations,
    mailer,
    baseUrl: deps.config.baseUrl,
    logger: deps.logger,
    policy: { allowPrivate: deps.config.webhookAllowPrivate },
    now,
  });
  // Contract §13: organizations' apps through OAuth 2.0, and the partner plane they read.
  const partner = await openPartner({
    store: deps.store,
    waitFor: deps.waitFor,
    db: deps.db,
    baseUrl: deps.config.baseUrl,
    rootKey: await keyring.dataKey(SERVICE_VAULT_ID),
    reads: requests.reads,
    records: requests.records,
    detail: (organizationId, requestId) => requests.org.detail(organizationId, requestId),
    source: { store: deps.store, keyring, blobs },
    validator,
    clients: (clientId) => organizationPlane.organizations.oauthClient(clientId),
    manifestOf: (organizationId, manifestId) => organizationPlane.manifests.exists(organizationId, manifestId),
    personRequests: requests.person,
    identities,
    loopbackHttp: deps.config.oauthAllowLoopbackHttp,
    trustProxy: deps.config.trustProxy !== false,
    logger: deps.logger,
    now,
  });
  const erasure = new AccountErasure({ store: deps.store, waitFor: deps.waitFor, otp, keyring, requests: requests.person });
  const exportLinks = await ExportLinks.open({ db: deps.db, identities, baseUrl: deps.config.baseUrl, now });
  const exportDeps = {
    store: deps.store,
    keyring,
    blobs,
    readModels: deps.db,
    identities,
    entities,
    requests: requests.person,
    history: requests.history,
    consentReceipts,
    now,
  };
  // Waiting for a starting worker counts against a job's time budget (R-LIM-10): a service that
  // answered before its workers started (about a second on a slow machine) would refuse the first
  // embedded-schema documents with a budget error not of the caller's doing. Awaited last, so the
  // workers start while the rest of the domain opens.
  await validator.ready();

  return {
    identities,
    documents,
    keyring,
    entities,
    copies,
    proposals,
    webhooks,
    organizations: organizationPlane.organizations,
    consentReceipts,
    routes: (app) => {
      app.use(forwardedForWarning(deps.logger));
      // Contract §11: the pages first (their /org/{organizationId}/.. paths are under the org plane's prefix); the
      // development mailbox on the embedded default only.
      const embedded = !deps.config.production && !deps.config.smtpUrl;
      app.use(webPages({ outbox: embedded ? join(deps.config.dataDir, OUTBOX_FILE) : null }));
      app.use(csrfGuard(browser));
      // R-TOK-02 and contract §14: the token keys and the receipt keys, told apart by kid (each verifier trusts its own).
      app.use(jwksRoute({ keys: [...keys.jwks.keys, ...consentReceipts.jwks.keys] }));
      app.use(openApiRoutes());
      app.use(schemasRoutes(validator));
      app.use(partnerSignInRoutes({ signIn: partner.signIn, consent: partner.consent, browser, now }));
      app.use(oauthRoutes({ server: partner.server, consent: partner.consent, auth, now }));
      app.use(
        underPrefix(
          '/partner/',
          partnerRoutes({
            partner: partner.plane,
            server: partner.server,
            store: partner.store,
            clients: (clientId) => organizationPlane.organizations.oauthClient(clientId),
            baseUrl: deps.config.baseUrl,
            now,
          }),
        ),
      );
      app.use(['/auth', '/graphql'], jsonBody());
      // Each plane's router is entered only by requests under its prefix (underPrefix).
      app.use(underPrefix('/auth/', authRoutes(identities, auth, now, browser)));
      // JSON per route (jsonBody() inside): later /org/v1 upload routes take raw bytes.
      app.use(
        underPrefix(
          '/org/',
          orgRoutes(organizationPlane, auth, now, { org: requests.org, copies, proposals, uploadSlot, feed, webhooks }, browser),
        ),
      );
      // Raw bytes, streamed: never behind jsonBody().
      app.use(underPrefix('/vault/', fileRoutes(files, auth, uploadSlot, now)));
      app.use(
        underPrefix(
          '/vault/',
          exportRoute({
            auth,
            links: exportLinks,
            turns: new ExportTurns(deps.db),
            fairUse,
            lines: (caller) => exportLines(exportDeps, caller),
            logger: deps.logger,
            now,
          }),
        ),
      );
      app.use(
        graphqlRoute(
          auth,
          { identities, documents, files, entities, requests: requests.person, exports: exportLinks, erasure, now },
          deps.logger,
        ),
      );
    },
    close: async () => {
      partner.close();
      await validator.close();
      await mailer.close();
    },
  };
}

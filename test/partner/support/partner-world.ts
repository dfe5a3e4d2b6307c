import { expect } from 'chai';
import { createLogger } from '../../../src/logger.js';
import { startConsentReceiptWorkers } from '../../../src/workers/consent-receipt-workers.js';
import type { Workers } from '../../../src/workers/reactor-runner.js';
import { orgClient, type OrgClient } from '../../api/org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Driver, type User } from '../../api/support/driver.js';
import { startTestService, type TestService } from '../../api/support/service.js';
import { documentedAnswers } from '../../api/support/documented.js';
import { freePort } from '../../support/own-cluster.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { browse, CookieJar, REDIRECT_URI, testApp } from './test-app.js';

/** What a partner-plane suite works with, filled in by partnerWorld's before(). */
export type PartnerWorld = {
  service: TestService;
  api: OrgClient;
  d: Driver;
  member: string;
  manifestId: string;
  slotId: string;
  app: Awaited<ReturnType<typeof testApp>>;
  clientId: string;
  /** A person with their name as a document, to share with the app. */
  person(): Promise<{ user: User; name: string }>;
  /** The person's side of the hosted consent: open the app's request, accept it with `name`, finish; the app's callback. */
  consent(user: User, name: string, url: URL): Promise<{ callback: URL; requestId: string }>;
  /** Every answer of the OAuth and partner-plane operations, checked against the document (test/api/support/documented.ts). */
  documented: ReturnType<typeof documentedAnswers>;
  /** An answer of `method template`, held to the document's success schema; answers its body. */
  checked(method: string, template: string, response: Response): Promise<Record<string, unknown>>;
  /** The request's consent receipts once it has `count` of them (the reactor issues them from the log). */
  receipts(requestId: string, count: number): Promise<string[]>;
  /** The data_request details of the suite's manifest. */
  details(manifestId?: string): Record<string, string>;
};

/**
 * A service whose BASE_URL is its own loopback address (the issuer and the DPoP proofs' URLs must be
 * the ones the app calls), Acme with a manual name slot, and Acme's app registered with its keys.
 */
export function partnerWorld(): PartnerWorld {
  const world = { documented: documentedAnswers() } as PartnerWorld;
  let receiptWorkers: Workers | undefined;
  world.checked = async (method, template, response) => {
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, `${method} ${template}: ${JSON.stringify(body)}`).to.equal(200);
    expect(world.documented.invalid(method, template, 200, body), `${method} ${template}`).to.equal(null);
    return body;
  };
  before(async () => {
    const mailer = new RecordingMailer();
    const port = await freePort();
    const env = { BASE_URL: `http://127.0.0.1:${port}`, SCHEMA_BASE: 'http://service.test/schemas', OAUTH_ALLOW_LOOPBACK_HTTP: '1' };
    world.service = await startTestService({ port, domain: { mailer, env } });
    receiptWorkers = await startConsentReceiptWorkers({
      db: world.service.db,
      store: world.service.store,
      receipts: world.service.domain!.consentReceipts,
      logger: createLogger('fatal', { write: () => undefined }),
      reactorPollMs: 20,
    });
    world.api = orgClient(world.service.url, mailer);
    const owner = await world.api.user();
    const organizationId = await world.api.organization(owner.token, 'Acme');
    world.member = await world.api.signIn(owner.token, organizationId);
    world.d = driver({ api: () => world.api, member: () => world.member });
    const manifest = await world.d.manifest([MANUAL_NAME_SLOT]);
    world.manifestId = manifest.manifestId;
    world.slotId = manifest.slots[0]!.slotId;
    world.app = await testApp(world.service.url);
    const registered = await world.api.post('/org/v1/apps', world.member, {
      name: 'Acme onboarding',
      redirectUris: [REDIRECT_URI],
      jwks: world.app.jwks,
    });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
    world.clientId = registered.body.clientId as string;
  });
  after(async () => {
    await receiptWorkers?.stop();
    await world.service?.close();
  });
  world.receipts = async (requestId, count) => {
    for (let i = 0; i < 200; i++) {
      const r = await world.api.get(`/org/v1/requests/${requestId}/receipts`, world.member);
      const receipts = (r.body.receipts as Array<{ jws: string }> | undefined) ?? [];
      if (receipts.length >= count) return receipts.map((x) => x.jws);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`request ${requestId} did not get ${count} consent receipts`);
  };
  world.details = (manifestId = world.manifestId) => ({
    authorization_details: JSON.stringify([{ type: 'data_request', manifest_id: manifestId }]),
  });
  world.person = async () => {
    const user = await world.api.user();
    return { user, name: await world.d.createDoc(user, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' }) };
  };
  world.consent = async (user, name, url) => {
    const jar = new CookieJar();
    const first = await browse(url, jar);
    if (!('interaction' in first)) throw new Error('the authorization went straight back to the app');
    const call = async (step: 'open' | 'finish', body?: unknown) => {
      const r = await fetch(`${world.service.url}/oauth/interaction/${first.interaction}/${step}`, {
        method: 'POST',
        headers: { cookie: jar.header(), authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      jar.take(r);
      return world.checked('POST', `/oauth/interaction/{uid}/${step}`, r);
    };
    const opened = await call('open');
    const requestId = opened.requestId as string;
    if (opened.active !== true) await world.d.accept(user, requestId, { [world.slotId]: [name] });
    const finished = await call('finish', { requestId });
    const back = await browse(new URL(finished.redirectTo as string), jar);
    if (!('callback' in back)) throw new Error('the authorization did not come back to the app');
    return { callback: back.callback, requestId };
  };
  return world;
}

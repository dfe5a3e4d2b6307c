import { expect } from 'chai';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DssProblem, Organization, signIn, signInMember, webhookVerifier, WebhookVerificationError } from '@dss/sdk';
import { MANUAL_NAME_SLOT } from '../api/support/driver.js';
import { mainBackend } from '../support/databases.js';
import { eventually, webhookSuite } from '../api/webhooks/webhook-support.js';

/** A loopback server answering its n-th request (from 0) as told, recording when each came. */
async function scripted(answer: (n: number, req: IncomingMessage, res: ServerResponse) => void) {
  const at: number[] = [];
  const server = createServer((req, res) => {
    at.push(Date.now());
    req.resume().on('end', () => answer(at.length - 1, req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    at,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const problem = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) =>
  res
    .writeHead(status, { 'content-type': 'application/problem+json', ...headers })
    .end(JSON.stringify({ type: `about:blank`, title: code, status, detail: `said ${code}`, code }));
const apps = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"apps":[]}');

describe('the SDK retries what the service says to retry, honouring Retry-After (docs/sdk.md)', function () {
  this.timeout(30_000);

  it('a 429 with Retry-After: 1 is sent again a second later, and the caller gets the answer', async () => {
    const server = await scripted((n, _req, res) => (n === 0 ? problem(res, 429, 'rate_limited', { 'retry-after': '1' }) : apps(res)));
    const org = new Organization({ baseUrl: server.url, token: 't' });
    const { data } = await org.api.GET('/org/v1/apps');
    await server.close();
    expect(data).to.deep.equal({ apps: [] });
    expect(server.at).to.have.length(2);
    expect(server.at[1]! - server.at[0]!).to.be.at.least(950);
  });

  it('a 503 service_unavailable is retried with backoff; a 503 projection_stalled is not (its command is in the log)', async () => {
    const unavailable = await scripted((n, _req, res) => (n < 2 ? problem(res, 503, 'service_unavailable') : apps(res)));
    const org = new Organization({ baseUrl: unavailable.url, token: 't', retry: { baseDelayMs: 20 } });
    expect((await org.api.GET('/org/v1/apps')).data).to.deep.equal({ apps: [] });
    await unavailable.close();
    expect(unavailable.at).to.have.length(3);

    const stalled = await scripted((_n, _req, res) => problem(res, 503, 'projection_stalled'));
    const keeping = new Organization({ baseUrl: stalled.url, token: 't', retry: { baseDelayMs: 20 } });
    const refused = await keeping.keep('r', 's').catch((e: unknown) => e);
    await stalled.close();
    expect(stalled.at).to.have.length(1);
    expect(refused).to.be.instanceOf(DssProblem).and.to.include({ status: 503, code: 'projection_stalled' });
  });

  it('a Retry-After beyond maxDelayMs is not waited for: the problem is thrown with it; retries run out after `retries`', async () => {
    const later = await scripted((_n, _req, res) => problem(res, 429, 'rate_limited', { 'retry-after': '3600' }));
    const org = new Organization({ baseUrl: later.url, token: 't' });
    const refused = await org.request('r').catch((e: unknown) => e);
    await later.close();
    expect(refused).to.be.instanceOf(DssProblem).and.to.include({ code: 'rate_limited', retryAfter: 3600 });
    expect(later.at).to.have.length(1);

    const always = await scripted((_n, _req, res) => problem(res, 503, 'service_unavailable'));
    const failing = new Organization({ baseUrl: always.url, token: 't', retry: { retries: 2, baseDelayMs: 10 } });
    await failing.request('r').catch(() => undefined);
    await always.close();
    expect(always.at).to.have.length(3);
  });
});

describe(`the SDK against a real service: sign-in by callback, problems typed by code, paging, webhooks verified (docs/sdk.md; ${mainBackend})`, function () {
  this.timeout(120_000);
  const w = webhookSuite({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });

  it('signIn gets the code from its callback; a wrong code is a DssProblem invalid_code, narrowed by is()', async () => {
    const email = w.owner.email;
    const session = await signIn({ baseUrl: w.service.url, email, code: (to) => w.mailer.lastCodeFor(to) });
    const organization = await signInMember({ baseUrl: w.service.url, userToken: session.token, organizationId: w.organizationId });
    expect(await organization.webhooks.list()).to.be.an('array');

    const wrong = await signIn({ baseUrl: w.service.url, email, code: () => '000000' }).catch((e: unknown) => e);
    expect(wrong).to.be.instanceOf(DssProblem);
    const refusal = wrong as DssProblem;
    expect(refusal.is('invalid_code') ? refusal.status : 'another code').to.equal(401);
  });

  it('requests() reads every page: five requests with limit 2 are three pages, newest first', async () => {
    const manifest = await w.api.post('/org/v1/manifests', w.token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [MANUAL_NAME_SLOT],
    });
    const manifestId = (manifest.body.manifest as { manifestId: string }).manifestId;
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await w.api.post('/org/v1/requests', w.token, { manifestId, recipientEmail: `p${i}@example.com` });
      sent.unshift((r.body.request as { requestId: string }).requestId);
    }
    let pages = 0;
    const org = new Organization({
      baseUrl: w.service.url,
      token: w.token,
      fetch: (request) => (pages++, fetch(request)),
    });
    const seen: string[] = [];
    for await (const request of org.requests({ limit: 2 })) seen.push(request.requestId);
    expect({ seen, pages }).to.deep.equal({ seen: sent, pages: 3 });
  });

  it('webhookVerifier checks a real delivery with the secret and answers the typed event; an altered body throws', async () => {
    const hook = await w.listen();
    const org = new Organization({ baseUrl: w.service.url, token: w.token });
    const { webhook, secret } = await org.webhooks.add({ url: hook.url, eventTypes: ['key.sealed', 'key.warmed'] });
    w.token = await w.calls.sealAndWarm(w.owner.token, w.organizationId, w.token);
    const [delivery] = await eventually(
      () => hook.received,
      (r) => r.length >= 1,
      'a delivery',
    );
    const verify = webhookVerifier(secret);
    const event = verify(delivery!.body, delivery!.headers);
    // Deliveries of one webhook are not ordered among themselves: the first may be either event.
    expect(event.organizationId).to.equal(w.organizationId);
    expect(['key.sealed', 'key.warmed']).to.include(event.type);
    const altered = delivery!.body.replace(event.type, event.type === 'key.sealed' ? 'key.warmed' : 'key.sealed');
    expect(() => verify(altered, delivery!.headers)).to.throw(WebhookVerificationError);
    const log = [];
    for await (const d of new Organization({ baseUrl: w.service.url, token: w.token }).webhooks.deliveries(webhook.webhookId)) log.push(d);
    expect(log.map((d) => d.eventId)).to.include(event.id);
  });
});

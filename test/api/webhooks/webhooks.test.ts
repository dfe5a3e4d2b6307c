import { expect } from 'chai';
import type { WebhookCreated } from '../../../src/events/webhook-events.js';
import { mainBackend } from '../../support/databases.js';
import { problem } from '../org/org-client.js';
import { eventually, webhookSuite, type WebhookView } from './webhook-support.js';

/** A name of the tests' own resolver: it points at the loopback receiver, as a DNS name an attacker controls might. */
const INSIDE = 'hooks.example.test';

describe(`R-HOOK-01 to R-HOOK-03, R-HOOK-08 webhooks of an organization: create, list, delete, and whom they may reach (contract §12; ${mainBackend})`, function () {
  this.timeout(120_000);
  // Without WEBHOOK_ALLOW_PRIVATE, as in production; the tests' resolver points a name at loopback.
  const w = webhookSuite({ deliveries: { resolve: async (host) => (host === INSIDE ? [{ address: '127.0.0.1', family: 4 }] : []) } });

  it('R-HOOK-01 creating one answers 201 with the webhook and its whsec_ secret, shown once: the list never shows it', async () => {
    const body = {
      url: 'https://hooks.acme.example/dss?source=dss',
      eventTypes: ['record.updated', 'request.accepted'],
      description: 'CRM',
    };
    const r = await w.api.post('/org/v1/webhooks', w.token, body);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const { webhook, secret } = r.body as { webhook: WebhookView; secret: string };
    expect(webhook).to.deep.include({
      url: body.url,
      eventTypes: ['request.accepted', 'record.updated'],
      description: 'CRM',
      enabled: true,
    });
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).to.have.length(32);

    const list = await w.api.get('/org/v1/webhooks', w.token);
    expect(list.status).to.equal(200);
    expect(list.body.webhooks).to.deep.include(webhook);
    expect(JSON.stringify(list.body)).not.to.include(secret.slice(6));
    // Nor does the log: the secret is in it only sealed.
    const [created] = await w.service.store.readStream(`webhook-${webhook.webhookId}`);
    expect(JSON.stringify(created!.data)).not.to.include(secret.slice(6));
  });

  it('R-HOOK-02 a URL that is not https, carries a user or password, is too long or is no URL is 400; so are an unknown, or no, event type', async () => {
    const refused = async (body: Record<string, unknown>) => problem(await w.api.post('/org/v1/webhooks', w.token, body));
    const types = ['key.warmed'];
    for (const url of [
      'http://hooks.acme.example/',
      'ftp://hooks.acme.example/',
      'https://ann:pw@hooks.acme.example/',
      'hooks.acme.example',
      '',
    ])
      expect(await refused({ url, eventTypes: types }), url).to.deep.equal({ status: 400, code: 'invalid_request' });
    expect(await refused({ url: `https://hooks.acme.example/${'a'.repeat(2048)}`, eventTypes: types })).to.deep.equal({
      status: 400,
      code: 'invalid_request',
    });
    const url = 'https://hooks.acme.example/';
    for (const eventTypes of [[], ['key.melted'], 'key.warmed', undefined])
      expect(await refused({ url, eventTypes }), JSON.stringify(eventTypes)).to.deep.equal({ status: 400, code: 'invalid_request' });
    expect(await refused({ url, eventTypes: types, secret: 'whsec_mine' })).to.deep.equal({ status: 400, code: 'invalid_request' });
    expect(await refused({ url, eventTypes: types, description: 'a\u0000b' })).to.deep.equal({ status: 400, code: 'invalid_request' });
  });

  it('R-HOOK-08 without WEBHOOK_ALLOW_PRIVATE, a private address is refused when the webhook is created', async () => {
    for (const host of [
      '127.0.0.1',
      '10.0.0.8',
      '169.254.169.254',
      '[::1]',
      '[fd00:ec2::254]',
      '[::ffff:192.168.1.1]',
      'localhost',
      'w.api.localhost',
    ]) {
      const r = await w.api.post('/org/v1/webhooks', w.token, { url: `https://${host}/hook`, eventTypes: ['key.warmed'] });
      expect(problem(r), host).to.deep.equal({ status: 400, code: 'invalid_request' });
      expect(r.body.detail, host).to.match(/public host/);
    }
  });

  it('R-HOOK-08 without WEBHOOK_ALLOW_PRIVATE, a name that resolves to a private address is refused at each delivery: nothing reaches it', async () => {
    const hook = await w.listen();
    const { webhook } = await w.calls.create(w.token, `https://${INSIDE}:${hook.port}/hook`, ['key.sealed', 'key.warmed']);
    w.token = await w.calls.sealAndWarm(w.owner.token, w.organizationId, w.token);
    const log = await eventually(
      () => w.calls.log(w.token, webhook.webhookId),
      (l) => l.length >= 2,
      'two attempts',
    );
    for (const attempt of log)
      expect(attempt).to.include({
        status: 'failed',
        responseStatus: null,
        error: 'refused: the host has an address that is not public (private, loopback, link-local or reserved)',
      });
    expect(hook.received).to.deep.equal([]);
  });

  it('R-HOOK-03 deleting answers deleted: the webhook leaves the list, its log is gone, its secret can no longer be opened', async () => {
    const { webhook } = await w.calls.create(w.token, 'https://hooks.acme.example/gone');
    const r = await w.api.del(`/org/v1/webhooks/${webhook.webhookId}`, w.token);
    expect([r.status, r.body]).to.deep.equal([200, { deleted: true }]);
    expect(((await w.api.get('/org/v1/webhooks', w.token)).body.webhooks as WebhookView[]).map((h) => h.webhookId)).not.to.include(
      webhook.webhookId,
    );
    expect(problem(await w.api.get(`/org/v1/webhooks/${webhook.webhookId}/deliveries`, w.token))).to.deep.equal({
      status: 404,
      code: 'not_found',
    });
    expect(problem(await w.api.del(`/org/v1/webhooks/${webhook.webhookId}`, w.token))).to.deep.equal({ status: 404, code: 'not_found' });
    const [created] = await w.service.store.readStream(`webhook-${webhook.webhookId}`);
    const sealed = (created!.data as WebhookCreated['data']).sealedSecret;
    expect(await w.service.domain!.webhooks.service.secretOf(webhook.webhookId, sealed)).to.equal(null);
  });

  it('R-HOOK-03 a member without member_manage is 403 on every webhook route', async () => {
    const bob = await w.api.user();
    const put = await w.api.put(`/org/v1/members/${encodeURIComponent(bob.email)}`, w.token, {
      permissions: ['request_read', 'request_manage', 'manifest_manage'],
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    const bobToken = await w.api.signIn(bob.token, w.organizationId);
    const { webhook } = await w.calls.create(w.token, 'https://hooks.acme.example/bob');
    const id = webhook.webhookId;
    for (const r of [
      await w.api.post('/org/v1/webhooks', bobToken, { url: 'https://hooks.acme.example/', eventTypes: ['key.warmed'] }),
      await w.api.get('/org/v1/webhooks', bobToken),
      await w.api.del(`/org/v1/webhooks/${id}`, bobToken),
      await w.api.get(`/org/v1/webhooks/${id}/deliveries`, bobToken),
      await w.api.post(`/org/v1/webhooks/${id}/test`, bobToken),
      await w.api.post(`/org/v1/webhooks/${id}/deliveries/${id}/retry`, bobToken),
    ])
      expect(problem(r)).to.deep.equal({ status: 403, code: 'forbidden' });
  });

  it('R-HOOK-03 another organization’s webhook, an unknown id or one that is no UUID is 404 on delete, deliveries, test and retry', async () => {
    const globexOwner = await w.api.user();
    const globex = await w.api.signIn(globexOwner.token, await w.api.organization(globexOwner.token, 'Globex'));
    const theirs = (await w.calls.create(globex, 'https://hooks.globex.example/')).webhook.webhookId;
    const ours = (await w.calls.create(w.token, 'https://hooks.acme.example/ours')).webhook.webhookId;
    for (const id of [theirs, '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', 'nope']) {
      for (const r of [
        await w.api.del(`/org/v1/webhooks/${id}`, w.token),
        await w.api.get(`/org/v1/webhooks/${id}/deliveries`, w.token),
        await w.api.post(`/org/v1/webhooks/${id}/test`, w.token),
        await w.api.post(`/org/v1/webhooks/${id}/deliveries/${ours}/retry`, w.token),
      ])
        expect(problem(r), id).to.deep.equal({ status: 404, code: 'not_found' });
    }
    // Nor a delivery the log does not have, of our own webhook.
    expect(problem(await w.api.post(`/org/v1/webhooks/${ours}/deliveries/${theirs}/retry`, w.token))).to.deep.equal({
      status: 404,
      code: 'not_found',
    });
    expect(((await w.api.get('/org/v1/webhooks', globex)).body.webhooks as WebhookView[]).map((h) => h.webhookId)).to.deep.equal([theirs]);
  });
});

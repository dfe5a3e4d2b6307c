import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { mainBackend } from '../../support/databases.js';
import { eventually, startDeliveries, webhookSuite } from './webhook-support.js';

describe(`R-HOOK-04 to R-HOOK-06 webhook deliveries to a real receiver on loopback (contract §12; ${mainBackend})`, function () {
  this.timeout(120_000);
  const w = webhookSuite({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  /** A key.sealed and a key.warmed in Acme's feed. */
  const twoEvents = async () => {
    w.token = await w.calls.sealAndWarm(w.owner.token, w.organizationId, w.token);
  };
  const remove = async (webhookId: string) => expect((await w.api.del(`/org/v1/webhooks/${webhookId}`, w.token)).status).to.equal(200);

  it('R-HOOK-04 each event is POSTed as the feed serves it, signed per Standard Webhooks: the library verifies it with the secret', async () => {
    const hook = await w.listen();
    const { webhook, secret } = await w.calls.create(w.token, hook.url);
    await twoEvents();
    const got = await eventually(
      () => hook.received,
      (r) => r.length >= 2,
      'two deliveries',
    );

    const feed = await w.calls.events(w.token);
    const verifier = new Webhook(secret);
    for (const r of got) {
      const event = verifier.verify(r.body, r.headers) as { id: string };
      expect(r.headers['webhook-id']).to.equal(event.id);
      expect(r.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(r.headers['content-type']).to.equal('application/json');
      expect(event, 'the body is the feed’s event').to.deep.equal(feed.find((e) => e.id === event.id));
    }
    expect(got.map((r) => (JSON.parse(r.body) as { type: string }).type).sort()).to.deep.equal(['key.sealed', 'key.warmed']);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got[0]!.body, got[0]!.headers)).to.throw(
      /No matching signature/,
    );
    await remove(webhook.webhookId);
  });

  it('R-HOOK-04 R-HOOK-05 a receiver that fails, then recovers, gets every event once, and the delivery log shows each attempt', async () => {
    const hook = await w.listen((n) => ({ status: n < 4 ? 500 : 204 }));
    const { webhook } = await w.calls.create(w.token, hook.url);
    const before = new Set((await w.calls.events(w.token)).map((e) => e.id));
    await twoEvents();
    await twoEvents();
    // The feed follows the log on its own: read it once it has all four.
    const sent = await eventually(
      async () => (await w.calls.events(w.token)).filter((e) => !before.has(e.id)),
      (s) => s.length >= 4,
      'the feed',
    );
    expect(sent).to.have.length(4);

    await eventually(
      () => hook.delivered(),
      (d) => d.length >= 4,
      'every event delivered',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(
      hook
        .delivered()
        .map((e) => e.id)
        .sort(),
      'each once, none twice',
    ).to.deep.equal(sent.map((e) => e.id).sort());
    expect(hook.received.filter((r) => r.answered === 500)).to.have.length(4);

    const log = await w.calls.log(w.token, webhook.webhookId);
    expect(log, 'an attempt for every request the receiver got').to.have.length(hook.received.length);
    for (const event of sent) {
      const attempts = log.filter((a) => a.eventId === event.id);
      expect(
        attempts.map((a) => a.attempt),
        'newest first',
      ).to.deep.equal(attempts.map((_, i) => attempts.length - i));
      expect(attempts[0]).to.include({ status: 'succeeded', responseStatus: 204, eventType: event.type, error: null });
      expect(attempts.slice(1).every((a) => a.status === 'failed' && a.responseStatus === 500 && a.error === 'HTTP 500')).to.equal(true);
    }
    await remove(webhook.webhookId);
  });

  it('R-HOOK-04 replayed from the start of the log and of the feed, nothing is delivered twice', async () => {
    const hook = await w.listen();
    const { webhook } = await w.calls.create(w.token, hook.url);
    await twoEvents();
    await eventually(
      () => hook.delivered(),
      (d) => d.length >= 2,
      'two deliveries',
    );

    await w.workers.stop();
    await w.service.db.query(`DELETE FROM reactors.checkpoints WHERE reactor LIKE 'webhook%'`);
    await w.service.db.query('DELETE FROM webhooks.feed_cursors');
    // Nor does the queue remember the jobs: only the deliveries' own key is left to say what was delivered.
    await w.service.db.query(`DELETE FROM queue.jobs WHERE queue_name = 'webhook-delivery'`);
    await w.queue.close();
    Object.assign(w, await startDeliveries(w.service));
    await twoEvents();
    await eventually(
      () => hook.delivered(),
      (d) => d.length >= 4,
      'the next two',
    );
    await new Promise((r) => setTimeout(r, 500));
    const ids = hook.delivered().map((e) => e.id);
    expect(ids).to.have.length(4);
    expect(new Set(ids).size).to.equal(4);
    await remove(webhook.webhookId);
  });

  it('R-HOOK-08 a redirect is not followed: the 302 is a failed attempt, and its target gets nothing', async () => {
    const target = await w.listen();
    const hook = await w.listen(() => ({ status: 302, headers: { location: target.url } }));
    const { webhook } = await w.calls.create(w.token, hook.url, ['key.sealed']);
    await twoEvents();
    const log = await eventually(
      () => w.calls.log(w.token, webhook.webhookId),
      (l) => l.length >= 2,
      'two attempts',
    );
    expect(log[0]).to.include({ status: 'failed', responseStatus: 302, error: 'redirect not followed (HTTP 302)' });
    expect(target.received).to.deep.equal([]);
    await remove(webhook.webhookId);
  });

  it('R-HOOK-04 one organization never receives another’s events', async () => {
    const globexOwner = await w.api.user();
    const globex = await w.api.organization(globexOwner.token, 'Globex');
    let globexToken = await w.api.signIn(globexOwner.token, globex);
    const [acmeHook, globexHook] = [await w.listen(), await w.listen()];
    const acme = await w.calls.create(w.token, acmeHook.url);
    const other = await w.calls.create(globexToken, globexHook.url);
    await twoEvents();
    globexToken = await w.calls.sealAndWarm(globexOwner.token, globex, globexToken);
    await twoEvents();
    await eventually(
      () => acmeHook.delivered(),
      (d) => d.length >= 4,
      'Acme’s four',
    );
    await eventually(
      () => globexHook.delivered(),
      (d) => d.length >= 2,
      'Globex’s two',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(acmeHook.delivered().map((e) => e.organizationId)).to.deep.equal(Array(4).fill(w.organizationId));
    expect(globexHook.delivered().map((e) => e.organizationId)).to.deep.equal([globex, globex]);
    // Nor another's log: its webhook is not found.
    expect((await w.api.get(`/org/v1/webhooks/${other.webhook.webhookId}/deliveries`, w.token)).status).to.equal(404);
    await remove(acme.webhook.webhookId);
  });

  it('R-HOOK-06 a test event goes to that webhook only; a retry sends a delivery again, with the same webhook-id', async () => {
    const [hook, bystander] = [await w.listen(), await w.listen()];
    const { webhook, secret } = await w.calls.create(w.token, hook.url);
    const other = await w.calls.create(w.token, bystander.url);
    const test = await w.api.post(`/org/v1/webhooks/${webhook.webhookId}/test`, w.token);
    expect(test.status, JSON.stringify(test.body)).to.equal(202);
    const eventId = test.body.eventId as string;
    const [got] = await eventually(
      () => hook.received,
      (r) => r.length >= 1,
      'the test event',
    );
    expect(new Webhook(secret).verify(got!.body, got!.headers)).to.deep.include({
      id: eventId,
      type: 'webhook.test',
      organizationId: w.organizationId,
    });

    const retried = await w.api.post(`/org/v1/webhooks/${webhook.webhookId}/deliveries/${eventId}/retry`, w.token);
    expect(retried.status, JSON.stringify(retried.body)).to.equal(202);
    await eventually(
      () => hook.received,
      (r) => r.length >= 2,
      'the retry',
    );
    expect(hook.received[1]!.headers['webhook-id']).to.equal(eventId);
    expect(hook.received[1]!.body).to.equal(got!.body);
    const log = await eventually(
      () => w.calls.log(w.token, webhook.webhookId),
      (l) => l.length >= 2,
      'both attempts logged',
    );
    expect(log.map((a) => [a.eventType, a.attempt, a.status])).to.deep.equal([
      ['webhook.test', 2, 'succeeded'],
      ['webhook.test', 1, 'succeeded'],
    ]);
    expect(bystander.received).to.deep.equal([]);
    await remove(webhook.webhookId);
    await remove(other.webhook.webhookId);
  });

  it('R-HOOK-06 the delivery log pages newest first with its cursor; a cursor it never gave is 400', async () => {
    const hook = await w.listen();
    const { webhook } = await w.calls.create(w.token, hook.url);
    await twoEvents();
    await twoEvents();
    const all = await eventually(
      () => w.calls.log(w.token, webhook.webhookId),
      (l) => l.length >= 4,
      'four attempts',
    );
    const pages: unknown[][] = [];
    for (let cursor: string | null = null, i = 0; i < 10; i++) {
      const r = await w.api.get(`/org/v1/webhooks/${webhook.webhookId}/deliveries?limit=3${cursor ? `&cursor=${cursor}` : ''}`, w.token);
      expect(r.status).to.equal(200);
      pages.push(r.body.deliveries as unknown[]);
      cursor = r.body.nextCursor as string | null;
      if (cursor === null) break;
    }
    expect(pages.map((p) => p.length)).to.deep.equal([3, 1]);
    expect(pages.flat()).to.deep.equal(all);
    const bad = await w.api.get(`/org/v1/webhooks/${webhook.webhookId}/deliveries?cursor=nope`, w.token);
    expect([bad.status, bad.body.code]).to.deep.equal([400, 'invalid_request']);
  });
});

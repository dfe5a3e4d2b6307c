import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { TestClock } from '../../support/recording-mailer.js';
import { problem } from '../org/org-client.js';
import { eventually, webhookSuite } from './webhook-support.js';

const DAY = 24 * 60 * 60 * 1000;

describe(`R-HOOK-07 an endpoint failing for 5 days is disabled, and the organization's managers are mailed (contract §12; ${mainBackend})`, function () {
  this.timeout(120_000);
  const clock = new TestClock();
  const w = webhookSuite({ env: { WEBHOOK_ALLOW_PRIVATE: '1' }, now: clock.now, deliveries: { schedule: [30, 30] } });

  it('fails every attempt for 5 days: disabled (nothing more is sent, a test is 409), each member_manage member mailed', async () => {
    const { api, calls, owner, organizationId } = w;
    const hook = await w.listen(() => ({ status: 503 }));
    const [bob, carol] = [await api.user(), await api.user()];
    await api.put(`/org/v1/members/${encodeURIComponent(bob.email)}`, w.token, { permissions: ['member_manage'] });
    await api.put(`/org/v1/members/${encodeURIComponent(carol.email)}`, w.token, { permissions: ['request_read'] });
    const failingSince = clock.now().toISOString();
    const { webhook } = await calls.create(w.token, hook.url, ['key.sealed', 'key.warmed']);
    w.token = await calls.sealAndWarm(owner.token, organizationId, w.token);
    // The schedule runs out (three attempts an event) well within the 5 days: the endpoint stays enabled.
    await eventually(
      () => calls.log(w.token, webhook.webhookId),
      (l) => l.length >= 6,
      'every attempt of two events',
    );
    const enabled = async () => ((await api.get('/org/v1/webhooks', w.token)).body.webhooks as Array<{ enabled: boolean }>)[0]!.enabled;
    expect(await enabled()).to.equal(true);

    clock.advance(5 * DAY);
    // Tokens have expired meanwhile: the founder signs in again, which warms the key: an event.
    const again = await api.user({ email: owner.email, register: false });
    w.token = await api.signIn(again.token, organizationId);
    const disabledMails = () => w.mailer.sent.filter((m) => m.subject.includes('was disabled'));
    await eventually(disabledMails, (m) => m.length >= 2, 'the managers’ mails');

    expect(
      disabledMails()
        .map((m) => m.to)
        .sort(),
    ).to.deep.equal([owner.email, bob.email].sort());
    expect(disabledMails()[0]!.text).to.include(`http://service.test/org/${organizationId}/webhooks`).and.include(webhook.webhookId);
    expect(await enabled()).to.equal(false);
    const events = (await w.service.store.readStream(`webhook-${webhook.webhookId}`)).map((e) => [e.type, e.data.failingSince]);
    expect(events).to.deep.equal([
      ['WebhookCreated', undefined],
      ['WebhookDisabled', failingSince],
    ]);

    const attempts = (await calls.log(w.token, webhook.webhookId)).length;
    const received = hook.received.length;
    w.token = await calls.sealAndWarm(again.token, organizationId, w.token);
    expect(problem(await api.post(`/org/v1/webhooks/${webhook.webhookId}/test`, w.token))).to.deep.equal({ status: 409, code: 'conflict' });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await calls.log(w.token, webhook.webhookId)).length, 'no attempt after it was disabled').to.equal(attempts);
    expect(hook.received.length).to.equal(received);
  });
});

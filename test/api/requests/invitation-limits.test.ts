import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import type { Reply } from '../../support/http.js';
import { TestClock, type RecordingMailer } from '../../support/recording-mailer.js';
import type { TestService } from '../support/service.js';
import { problem, startOrgService, type OrgClient } from '../org/org-client.js';
import { appendedSince, logMark } from '../support/driver.js';

const DAY = 24 * 60 * 60_000;
const slot = {
  label: 'Name',
  group: 'Identity',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
};
const address = () => `i${randomBytes(4).toString('hex')}@example.com`;

describe(`invitation limits: per member, organization and recipient (contract 9; ${mainBackend})`, function () {
  this.timeout(60_000);
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: OrgClient;
  let mailer: RecordingMailer;

  before(async () => {
    const env = { INVITES_PER_MEMBER_PER_DAY: '3', INVITES_PER_ORG_PER_DAY: '5', INVITES_PER_RECIPIENT_PER_DAY: '2' };
    ({ service, api, mailer } = await startOrgService({ env, now: clock.now }));
  });
  after(() => service.close());

  type Org = { id: string; token: string; ownerToken: string; manifestId: string };
  async function organization(name = 'Acme', ownerToken?: string): Promise<Org> {
    const userToken = ownerToken ?? (await api.user()).token;
    const id = await api.organization(userToken, name);
    const token = await api.signIn(userToken, id);
    const manifest = await api.post('/org/v1/manifests', token, {
      name: 'KYC',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [slot],
    });
    expect(manifest.status, JSON.stringify(manifest.body)).to.equal(201);
    return { id, token, ownerToken: userToken, manifestId: (manifest.body.manifest as { manifestId: string }).manifestId };
  }
  async function memberOf(org: Org): Promise<string> {
    const user = await api.user();
    expect(
      (await api.put(`/org/v1/members/${user.email}`, org.token, { permissions: ['request_manage', 'request_read'] })).status,
    ).to.equal(200);
    return api.signIn(user.token, org.id);
  }
  const invite = (org: Org, token = org.token, recipientEmail = address()) =>
    api.post('/org/v1/requests', token, { manifestId: org.manifestId, recipientEmail });
  const listed = async (org: Org) => ((await api.get('/org/v1/requests', org.token)).body.requests as unknown[]).length;

  /** The answer is 429 rate_limited with Retry-After, and nothing was written or mailed. */
  async function expectRefusedWithoutTrace(call: () => Promise<Reply>): Promise<void> {
    const [since, mails] = [await logMark(service.db), mailer.sent.length];
    const r = await call();
    expect(problem(r)).to.deep.equal({ status: 429, code: 'rate_limited' });
    expect(Number(r.headers.get('retry-after'))).to.be.within(1, DAY / 1000);
    expect(await appendedSince(service.db, since)).to.deep.equal([]);
    expect(mailer.sent.length).to.equal(mails);
  }

  it("a member's fourth invitation in a day is refused, in any of their organizations; a day later they may invite again", async () => {
    const acme = await organization();
    for (let i = 0; i < 3; i++) expect((await invite(acme)).status).to.equal(201);
    await expectRefusedWithoutTrace(() => invite(acme));
    expect(await listed(acme)).to.equal(3);
    const founded = await organization('Acme Two', acme.ownerToken);
    await expectRefusedWithoutTrace(() => invite(founded));
    expect((await invite(acme, await memberOf(acme))).status).to.equal(201);
    clock.advance(DAY);
    expect((await invite(acme)).status).to.equal(201);
  });

  it("the organization's sixth invitation in a day is refused although its member has room", async () => {
    const acme = await organization();
    const second = await memberOf(acme);
    for (let i = 0; i < 3; i++) expect((await invite(acme)).status).to.equal(201);
    for (let i = 0; i < 2; i++) expect((await invite(acme, second)).status).to.equal(201);
    await expectRefusedWithoutTrace(() => invite(acme, second));
    expect(await listed(acme)).to.equal(5);
  });

  it('a third invitation of one address by one organization in a day is refused; other organizations may still invite it', async () => {
    const acme = await organization();
    const ann = address();
    for (let i = 0; i < 2; i++) expect((await invite(acme, acme.token, ann.toUpperCase())).status).to.equal(201);
    await expectRefusedWithoutTrace(() => invite(acme, acme.token, ann));
    expect((await invite(acme, acme.token, address())).status).to.equal(201);
    const rival = await organization('Rival');
    expect((await invite(rival, rival.token, ann)).status).to.equal(201);
  });

  it('an invitation refused for another reason (400, 404) takes no slot', async () => {
    const acme = await organization();
    const rival = await organization('Rival');
    for (let i = 0; i < 3; i++) {
      const tooLate = await api.post('/org/v1/requests', acme.token, {
        manifestId: acme.manifestId,
        recipientEmail: address(),
        invitationExpiresAt: new Date(clock.now().getTime() + 91 * DAY).toISOString(),
      });
      expect(problem(tooLate)).to.deep.equal({ status: 400, code: 'invalid_request' });
      expect(
        problem(await api.post('/org/v1/requests', acme.token, { manifestId: rival.manifestId, recipientEmail: address() })),
      ).to.deep.equal({ status: 404, code: 'not_found' });
    }
    for (let i = 0; i < 3; i++) expect((await invite(acme)).status).to.equal(201);
  });

  it('ten concurrent invitations against a limit of three: exactly three are written and mailed', async () => {
    const acme = await organization();
    const recipients = Array.from({ length: 10 }, address);
    const answers = await Promise.all(recipients.map((to) => invite(acme, acme.token, to)));
    expect(answers.filter((a) => a.status === 201)).to.have.length(3);
    expect(answers.filter((a) => problem(a).code === 'rate_limited')).to.have.length(7);
    expect(await listed(acme)).to.equal(3);
    expect(mailer.sent.filter((m) => recipients.includes(m.to))).to.have.length(3);
  });

  it("the mail quotes the organization's names and makes them inert: nothing in them becomes a link or an address", async () => {
    const userToken = (await api.user()).token;
    const id = await api.organization(userToken, 'Visit evil.example now');
    const token = await api.signIn(userToken, id);
    // A link is refused at the edge (contract §9); what is left of a name's look of an address is defused.
    const linked = await api.post('/org/v1/manifests', token, {
      name: 'Claim at https://evil.example/x',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [slot],
    });
    expect(linked.status).to.equal(400);
    expect(linked.body.detail).to.match(/^name /);
    const manifest = await api.post('/org/v1/manifests', token, {
      name: 'Claim at evil.example/x or help@evil.example',
      purpose: 'To check who you are',
      retention: 'P30D',
      slots: [slot],
    });
    const to = address();
    expect(
      (
        await api.post('/org/v1/requests', token, {
          manifestId: (manifest.body.manifest as { manifestId: string }).manifestId,
          recipientEmail: to,
        })
      ).status,
    ).to.equal(201);
    const mail = mailer.sent.find((m) => m.to === to)!;
    expect(mail.subject).to.contain('"Visit evil[.]example now"');
    expect(mail.text).to.contain('"Claim at evil[.]example/x or help[@]evil[.]example"');
    expect(mail.subject + mail.text).to.not.match(/evil\.example|https:\/\/|help@/);
  });
});

import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mainBackend } from '../../support/databases.js';
import { client, type Reply } from '../../support/http.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

const HOUR = 60 * 60_000;
const freshEmail = () => `l${randomBytes(4).toString('hex')}@example.com`;
const problem = (r: Reply) => ({ status: r.status, code: r.body.code });
/** Behind TRUST_PROXY the proxy says who the client is; without it this header is the client's own claim. */
const from = (ip: string) => ({ 'x-forwarded-for': ip });
let clients = 0;
const freshClient = () => `198.51.100.${++clients}`;

describe(`login limits no stranger can turn against a person (spec 4.1; ${mainBackend})`, function () {
  this.timeout(60_000);
  const mailer = new RecordingMailer();
  const clock = new TestClock(Date.now());
  const wrong = (email: string, ip: string) => api.post('/auth/verify-otp', { email, code: '123456' }, undefined, from(ip));
  let service: TestService;
  let api: ReturnType<typeof client>;

  before(async () => {
    service = await startTestService({
      domain: {
        mailer,
        now: clock.now,
        env: { TRUST_PROXY: 'loopback', OTP_FAILURES_PER_CLIENT_PER_HOUR: '5', OTP_SENDS_PER_CLIENT_PER_HOUR: '4' },
      },
    });
    api = client(service.url);
  });
  after(() => service.close());

  it('25 wrong codes for an address that asked for none lock nothing: its owner then gets a code and logs in', async () => {
    const victim = freshEmail();
    for (let i = 1; i <= 25; i++)
      expect(problem(await wrong(victim, `203.0.113.${i}`)), `attempt ${i}`).to.deep.equal({ status: 401, code: 'invalid_code' });
    const owner = freshClient();
    expect((await api.post('/auth/send-otp', { email: victim }, undefined, from(owner))).status).to.equal(200);
    const login = await api.post('/auth/verify-otp', { email: victim, code: mailer.lastCodeFor(victim) }, undefined, from(owner));
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
  });

  it('after 5 failures from one client address the next is 429 too_many_attempts with Retry-After; other client addresses are unaffected', async () => {
    const attacker = freshClient();
    for (let i = 0; i < 5; i++) expect((await wrong(freshEmail(), attacker)).status).to.equal(401);
    const refused = await wrong(freshEmail(), attacker);
    expect(problem(refused)).to.deep.equal({ status: 429, code: 'too_many_attempts' });
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);

    const email = freshEmail();
    const neighbour = freshClient();
    await api.post('/auth/send-otp', { email }, undefined, from(neighbour));
    expect((await api.post('/auth/verify-otp', { email, code: mailer.lastCodeFor(email) }, undefined, from(neighbour))).status).to.equal(
      200,
    );

    clock.advance(HOUR);
    expect((await wrong(freshEmail(), attacker)).status).to.equal(401);
  });

  it('ten concurrent wrong codes from one client address: five are judged, five refused', async () => {
    const attacker = freshClient();
    const answers = await Promise.all(Array.from({ length: 10 }, () => wrong(freshEmail(), attacker)));
    expect(answers.filter((a) => a.status === 401)).to.have.length(5);
    expect(answers.filter((a) => problem(a).code === 'too_many_attempts')).to.have.length(5);
  });

  it("the fifth code one client address asks for within an hour is 429 rate_limited, mails nothing and spends no one's allowance", async () => {
    const sender = freshClient();
    for (let i = 0; i < 4; i++)
      expect((await api.post('/auth/send-otp', { email: freshEmail() }, undefined, from(sender))).status).to.equal(200);
    const target = freshEmail();
    const mails = mailer.sent.length;
    const refused = await api.post('/auth/send-otp', { email: target }, undefined, from(sender));
    expect(problem(refused)).to.deep.equal({ status: 429, code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);
    expect(mailer.sent.length).to.equal(mails);
    for (let i = 0; i < 3; i++)
      expect((await api.post('/auth/send-otp', { email: target }, undefined, from(freshClient()))).status).to.equal(200);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: a client cannot name a fresh address per call', async () => {
    const direct = await startTestService({ domain: { mailer, now: clock.now, env: { OTP_FAILURES_PER_CLIENT_PER_HOUR: '5' } } });
    try {
      const answers: Reply[] = [];
      for (let i = 1; i <= 6; i++)
        answers.push(
          await client(direct.url).post('/auth/verify-otp', { email: freshEmail(), code: '123456' }, undefined, from(`203.0.113.${i}`)),
        );
      expect(answers.map((a) => a.status)).to.deep.equal([401, 401, 401, 401, 401, 429]);
      expect(problem(answers[5]!).code).to.equal('too_many_attempts');
    } finally {
      await direct.close();
    }
  });
});

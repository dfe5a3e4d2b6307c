import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { mainBackend } from '../../support/databases.js';
import { client, type Reply } from '../../support/http.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';

const HOUR = 60 * 60_000;
const freshEmail = () => `v${randomBytes(4).toString('hex')}@example.com`;
const problem = (r: Reply) => ({ status: r.status, code: r.body.code });
/** Behind TRUST_PROXY=loopback the proxy (the test) names the client's network address. */
const from = (ip: string) => ({ 'x-forwarded-for': ip });
let clients = 0;
const freshClient = () => `198.51.100.${++clients}`;

describe(`§10.9 a flood of wrong codes from one network address cannot stop an address's owner signing in from another (${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  const clock = new TestClock(Date.now());
  let service: TestService;
  let api: ReturnType<typeof client>;
  const send = (email: string, ip: string) => api.post('/auth/send-otp', { email }, undefined, from(ip));
  const verify = (email: string, code: string, ip: string) => api.post('/auth/verify-otp', { email, code }, undefined, from(ip));
  const wrongFor = (email: string) => (mailer.lastCodeFor(email) === '000000' ? '000001' : '000000');

  before(async () => {
    // The service's own defaults for every code limit; only the client address comes from the proxy.
    service = await startTestService({
      domain: { mailer, now: clock.now, env: { TRUST_PROXY: 'loopback', OTP_FAILURES_PER_CLIENT_PER_HOUR: '20' } },
    });
    api = client(service.url);
  });
  after(() => service.close());

  it('given an attacker who for hours has codes sent to an address and answers each with five wrong ones, its owner signs in from another address', async () => {
    const victim = freshEmail();
    const attacker = freshClient();
    for (let hour = 0; hour < 4; hour++) {
      for (let round = 0; round < 3; round++) {
        await send(victim, attacker);
        for (let i = 0; i < 5; i++) await verify(victim, wrongFor(victim), attacker);
      }
      clock.advance(HOUR);
    }
    const owner = freshClient();
    expect((await send(victim, owner)).status).to.equal(200);
    const login = await verify(victim, mailer.lastCodeFor(victim), owner);
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
  });

  it("given five wrong codes from one network address, that address is refused the code, and the owner's right code from another still signs in", async () => {
    const victim = freshEmail();
    await send(victim, freshClient());
    const attacker = freshClient();
    for (let i = 0; i < 5; i++)
      expect(problem(await verify(victim, wrongFor(victim), attacker))).to.deep.equal({ status: 401, code: 'invalid_code' });
    expect(problem(await verify(victim, mailer.lastCodeFor(victim), attacker))).to.deep.equal({ status: 429, code: 'too_many_attempts' });
    expect((await verify(victim, mailer.lastCodeFor(victim), freshClient())).status).to.equal(200);
  });

  it('given 10 wrong codes from one network address against an address in a day, even the right code from there is refused until the day is over', async () => {
    const victim = freshEmail();
    const attacker = freshClient();
    for (let round = 0; round < 2; round++) {
      await send(victim, attacker);
      for (let i = 0; i < 5; i++) expect((await verify(victim, wrongFor(victim), attacker)).status).to.equal(401);
    }
    await send(victim, attacker);
    const refused = await verify(victim, mailer.lastCodeFor(victim), attacker);
    expect(problem(refused)).to.deep.equal({ status: 429, code: 'too_many_attempts' });
    expect(Number(refused.headers.get('retry-after'))).to.be.within(23 * 3600, 24 * 3600);
  });

  it('given 30 wrong codes against an address in a day from several network addresses, every verify of it is refused for the day', async () => {
    const victim = freshEmail();
    for (let attacker = 0; attacker < 3; attacker++) {
      const ip = freshClient();
      for (let round = 0; round < 2; round++) {
        clock.advance(HOUR);
        await send(victim, ip);
        for (let i = 0; i < 5; i++) expect((await verify(victim, wrongFor(victim), ip)).status).to.equal(401);
      }
    }
    clock.advance(HOUR);
    const owner = freshClient();
    await send(victim, owner);
    expect(problem(await verify(victim, mailer.lastCodeFor(victim), owner))).to.deep.equal({ status: 429, code: 'too_many_attempts' });
  });

  it('given one network address at the same failure limit as the whole address, the service refuses to start', () => {
    const settings = { OTP_DAILY_FAILURE_CAP: '10', OTP_FAILURES_PER_ADDRESS_AND_CLIENT_PER_DAY: '10' };
    expect(() => loadConfig(settings)).to.throw(
      ConfigError,
      /OTP_FAILURES_PER_ADDRESS_AND_CLIENT_PER_DAY must be less than OTP_DAILY_FAILURE_CAP/,
    );
  });
});

describe(`§10.9 X-Forwarded-For while TRUST_PROXY is off (${mainBackend})`, function () {
  this.timeout(60_000);
  let service: TestService;

  before(async () => {
    service = await startTestService({ domain: { mailer: new RecordingMailer() } });
  });
  after(() => service.close());

  it('given requests carrying X-Forwarded-For while TRUST_PROXY is off, the service logs one warning, once', async () => {
    const api = client(service.url);
    for (const ip of ['203.0.113.7', '203.0.113.8', '203.0.113.9'])
      await api.post('/auth/send-otp', { email: freshEmail() }, undefined, from(ip));
    const warnings = service.logs().filter((l) => String(l.msg).includes('X-Forwarded-For'));
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ level: 40 });
    expect(String(warnings[0]!.msg)).to.match(/TRUST_PROXY/);
  });
});

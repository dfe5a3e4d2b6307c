import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { isRefusal, type Refusal } from '../../../src/commands/refusal.js';
import type { Email } from '../../../src/identity/email.js';
import { generateCode, hasCodeShape } from '../../../src/identity/otp/code.js';
import { OTP_LIMITS, OtpService } from '../../../src/identity/otp/otp-service.js';
import { OtpSecrets } from '../../../src/identity/otp/secrets.js';
import { clientAddress } from '../../../src/limits/client-address.js';
import { SlidingWindows } from '../../../src/limits/sliding-windows.js';
import { mainBackend, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import { RecordingMailer, TestClock } from '../../support/recording-mailer.js';

const MIN = 60_000;
let n = 0;
const freshEmail = () => `person${++n}.${randomBytes(3).toString('hex')}@example.com` as Email;
const code = (r: Refusal | null) => (r === null ? 'ok' : r.code);
const CLIENT = clientAddress('192.0.2.1');

describe(`one-time codes (spec 4.1, 8; ${mainBackend})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  let mailer: RecordingMailer;
  let clock: TestClock;
  let otp: OtpService;
  const secrets = new OtpSecrets(randomBytes(32));
  const rootKey = randomBytes(32);
  const open = async (cap = 20) =>
    OtpService.open({
      db: t.db,
      windows: await SlidingWindows.open(t.db, rootKey),
      secrets,
      mailer,
      now: clock.now,
      dailyFailureCap: cap,
      failuresPerAddressAndClientPerDay: 1000,
      sendsPerClientPerHour: 1000,
      failuresPerClientPerHour: 1000,
    });

  before(async () => {
    t = await openTestDatabase();
  });
  after(() => t.drop());
  beforeEach(async () => {
    mailer = new RecordingMailer();
    clock = new TestClock();
    otp = await open();
  });

  it('a mailed code logs in once and never twice', async () => {
    const email = freshEmail();
    expect(await otp.send(email, 'login', CLIENT)).to.equal(null);
    const c = mailer.lastCodeFor(email);
    expect(await otp.verify(email, 'login', c, CLIENT)).to.equal(null);
    expect(code(await otp.verify(email, 'login', c, CLIENT))).to.equal('invalid_code');
  });

  it('the mail holds the 6-digit code and no other 6-digit number', async () => {
    const email = freshEmail();
    await otp.send(email, 'login', CLIENT);
    expect(mailer.sent[0]!.text.match(/\d{6}/g)).to.have.length(1);
  });

  it('codes are six ASCII digits from the CSPRNG and keep leading zeros', () => {
    const codes = Array.from({ length: 300 }, generateCode);
    expect(codes.every((c) => /^[0-9]{6}$/.test(c))).to.equal(true);
    expect(codes.some((c) => c.startsWith('0'))).to.equal(true);
    expect(new Set(codes).size).to.be.greaterThan(290);
    expect(hasCodeShape('004211')).to.equal(true);
    expect(hasCodeShape('１２３４５６')).to.equal(false);
  });

  it('the fourth send within an hour answers rate_limited with Retry-After; an hour later it sends again', async () => {
    const email = freshEmail();
    for (let i = 0; i < 3; i++) {
      expect(await otp.send(email, 'login', CLIENT)).to.equal(null);
      clock.advance(10 * MIN);
    }
    const fourth = await otp.send(email, 'login', CLIENT);
    expect(code(fourth)).to.equal('rate_limited');
    expect(fourth!.retryAfter).to.equal(30 * 60);
    clock.advance(30 * MIN);
    expect(await otp.send(email, 'login', CLIENT)).to.equal(null);
    expect(mailer.sent).to.have.length(4);
  });

  it('ten parallel sends for one address send exactly three mails', async () => {
    const email = freshEmail();
    const results = await Promise.all(Array.from({ length: 10 }, () => otp.send(email, 'login', CLIENT)));
    expect(results.filter((r) => r === null)).to.have.length(3);
    expect(results.filter((r) => r?.code === 'rate_limited')).to.have.length(7);
    expect(mailer.sent.filter((m) => m.to === email)).to.have.length(3);
  });

  it('limits hold across a restart (a new service instance on the same database)', async () => {
    const email = freshEmail();
    for (let i = 0; i < 3; i++) await otp.send(email, 'login', CLIENT);
    const restarted = await open();
    expect(code(await restarted.send(email, 'login', CLIENT))).to.equal('rate_limited');
  });

  it('a code expires after 15 minutes', async () => {
    const [a, b] = [freshEmail(), freshEmail()];
    await otp.send(a, 'login', CLIENT);
    await otp.send(b, 'login', CLIENT);
    clock.advance(OTP_LIMITS.codeLifetimeMs - 1000);
    expect(await otp.verify(a, 'login', mailer.lastCodeFor(a), CLIENT)).to.equal(null);
    clock.advance(1000);
    expect(code(await otp.verify(b, 'login', mailer.lastCodeFor(b), CLIENT))).to.equal('invalid_code');
  });

  it('a new send makes the previous code fail', async () => {
    const email = freshEmail();
    await otp.send(email, 'login', CLIENT);
    const first = mailer.lastCodeFor(email);
    await otp.send(email, 'login', CLIENT);
    const second = mailer.lastCodeFor(email);
    if (first === second) return; // one chance in a million: nothing to tell apart
    expect(code(await otp.verify(email, 'login', first, CLIENT))).to.equal('invalid_code');
    expect(await otp.verify(email, 'login', second, CLIENT)).to.equal(null);
  });

  it('five wrong tries answer invalid_code; from the sixth even the right code is too_many_attempts', async () => {
    const email = freshEmail();
    await otp.send(email, 'login', CLIENT);
    const right = mailer.lastCodeFor(email);
    const wrong = right === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) expect(code(await otp.verify(email, 'login', wrong, CLIENT))).to.equal('invalid_code');
    const sixth = await otp.verify(email, 'login', right, CLIENT);
    expect(code(sixth)).to.equal('too_many_attempts');
    expect(sixth!.retryAfter).to.be.greaterThan(0);
  });

  it('concurrent wrong guesses cannot exceed five attempts', async () => {
    const email = freshEmail();
    await otp.send(email, 'login', CLIENT);
    const right = mailer.lastCodeFor(email);
    const guesses = Array.from({ length: 12 }, (_, i) => String(i).padStart(6, '0'))
      .filter((g) => g !== right)
      .slice(0, 10);
    const results = await Promise.all(guesses.map((g) => otp.verify(email, 'login', g, CLIENT)));
    expect(results.filter((r) => r?.code === 'invalid_code')).to.have.length(5);
    expect(results.filter((r) => r?.code === 'too_many_attempts')).to.have.length(5);
  });

  it("a right code is not held up by another address's failure in flight from the same network address; a wrong code is", async function () {
    if (mainBackend === 'pglite') this.skip(); // one connection: the held transaction holds every statement there
    const [email, other] = [freshEmail(), freshEmail()];
    await otp.send(email, 'login', CLIENT);
    await otp.send(other, 'login', CLIENT);
    const right = mailer.lastCodeFor(email);
    const wrongForOther = mailer.lastCodeFor(other) === '000000' ? '000001' : '000000';
    // Held as a failed verification from CLIENT holds it until its transaction ends (the bucket's name is the service's).
    const failuresFromClient = { bucket: `otp-failure-client:${CLIENT}`, max: 1000, windowMs: OTP_LIMITS.windowMs };
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      void t.db.transaction(async (tx) => {
        await (await SlidingWindows.open(t.db, rootKey)).check(tx, [failuresFromClient], clock.now());
        resolve();
        await new Promise<void>((r) => (release = r));
      });
    });
    await held;
    const within = (p: Promise<Refusal | null>) =>
      Promise.race([p.then(code), new Promise<string>((resolve) => setTimeout(() => resolve('held up'), 1500))]);
    try {
      const wrongVerify = otp.verify(other, 'login', wrongForOther, CLIENT);
      expect(await within(wrongVerify)).to.equal('held up');
      expect(await within(otp.verify(email, 'login', right, CLIENT))).to.equal('ok');
      release();
      // The wrong code waited its turn, then was judged and counted.
      expect(code(await wrongVerify)).to.equal('invalid_code');
    } finally {
      release();
    }
  });

  it('of two concurrent correct verifies exactly one wins', async () => {
    const email = freshEmail();
    await otp.send(email, 'login', CLIENT);
    const c = mailer.lastCodeFor(email);
    const results = await Promise.all([otp.verify(email, 'login', c, CLIENT), otp.verify(email, 'login', c, CLIENT)]);
    expect(results.filter((r) => r === null)).to.have.length(1);
    expect(results.filter((r) => r?.code === 'invalid_code')).to.have.length(1);
  });

  it('wrong, unknown, malformed and fullwidth codes all answer the same invalid_code', async () => {
    const email = freshEmail();
    expect(code(await otp.verify(email, 'login', '123456', CLIENT))).to.equal('invalid_code');
    await otp.send(email, 'login', CLIENT);
    for (const bad of ['12345', '１２３４５６', '12345a', ' 123456', '']) {
      const r = await otp.verify(email, 'login', bad, CLIENT);
      expect(isRefusal(r) && r.code, bad).to.equal('invalid_code');
    }
  });

  it('failed verifications per address per day are capped, whatever the codes', async () => {
    otp = await open(7);
    const email = freshEmail();
    for (let round = 0; round < 2; round++) {
      await otp.send(email, 'login', CLIENT);
      const right = mailer.lastCodeFor(email);
      for (let i = 0; i < 4; i++) await otp.verify(email, 'login', right === '999999' ? '999998' : '999999', CLIENT);
    }
    await otp.send(email, 'login', CLIENT);
    expect(code(await otp.verify(email, 'login', mailer.lastCodeFor(email), CLIENT))).to.equal('too_many_attempts');
    clock.advance(OTP_LIMITS.failureWindowMs);
    await otp.send(email, 'login', CLIENT);
    expect(await otp.verify(email, 'login', mailer.lastCodeFor(email), CLIENT)).to.equal(null);
  });

  it('wrong codes for an address with no live code count nothing toward its daily cap', async () => {
    otp = await open(3);
    const email = freshEmail();
    for (let i = 0; i < 10; i++) expect(code(await otp.verify(email, 'login', '123456', CLIENT))).to.equal('invalid_code');
    await otp.send(email, 'login', CLIENT);
    const right = mailer.lastCodeFor(email);
    expect(await otp.verify(email, 'login', right, CLIENT)).to.equal(null);
    for (let i = 0; i < 10; i++) expect(code(await otp.verify(email, 'login', right, CLIENT))).to.equal('invalid_code');
    await otp.send(email, 'login', CLIENT);
    expect(await otp.verify(email, 'login', mailer.lastCodeFor(email), CLIENT)).to.equal(null);
  });

  it('a login code does not confirm a secondary address, nor the other way round', async () => {
    const email = freshEmail();
    await otp.send(email, 'login', CLIENT);
    expect(code(await otp.verify(email, 'verify-email:someone', mailer.lastCodeFor(email), CLIENT))).to.equal('invalid_code');
  });

  it('when mail fails: email_unavailable, no allowance consumed, and the unsent code never works', async () => {
    const email = freshEmail();
    mailer.failing = true;
    expect(code(await otp.send(email, 'login', CLIENT))).to.equal('email_unavailable');
    mailer.failing = false;
    for (let i = 0; i < 3; i++) expect(await otp.send(email, 'login', CLIENT)).to.equal(null);
  });

  it('stores codes and addresses only as keyed hashes', async () => {
    const email = freshEmail();
    await otp.send(email, 'login', CLIENT);
    const c = mailer.lastCodeFor(email);
    const dump =
      JSON.stringify((await t.db.query('SELECT * FROM auth.otp_codes')).rows) +
      JSON.stringify((await t.db.query('SELECT * FROM limits.hits')).rows) +
      JSON.stringify((await t.db.query('SELECT * FROM limits.buckets')).rows);
    expect(dump).to.not.contain(c);
    expect(dump).to.not.contain(email);
  });
});

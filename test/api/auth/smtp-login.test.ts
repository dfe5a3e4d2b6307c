import { expect } from 'chai';
import { mainBackend } from '../../support/databases.js';
import { client } from '../../support/http.js';
import { parseMail, startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { startTestService, type TestService } from '../support/service.js';

describe(`login through a real SMTP server (spec 4.1; ${mainBackend})`, function () {
  this.timeout(60_000);
  let sink: SmtpSink;
  let service: TestService;

  before(async () => {
    sink = await startSmtpSink();
    service = await startTestService({ domain: { env: { SMTP_URL: sink.url, MAIL_FROM: 'Data Sharing <codes@service.test>' } } });
  });
  after(async () => {
    await service.close();
    await sink.close();
  });

  it('the SMTP sink receives the code; the code logs in once and never twice', async () => {
    const api = client(service.url);
    expect((await api.post('/auth/send-otp', { email: 'Mail.Test@Example.com' })).status).to.equal(200);
    expect(sink.received).to.have.length(1);
    const mail = sink.received[0]!;
    expect(mail.to).to.deep.equal(['mail.test@example.com']);
    expect(mail.from).to.equal('codes@service.test');
    const codes = parseMail(mail.raw).body.match(/\b\d{6}\b/g);
    expect(codes).to.have.length(1);

    const first = await api.post('/auth/verify-otp', { email: 'mail.test@example.com', code: codes![0] });
    expect(first.status).to.equal(200);
    expect(first.body.isNewUser).to.equal(true);
    const second = await api.post('/auth/verify-otp', { email: 'mail.test@example.com', code: codes![0] });
    expect(second.status).to.equal(401);
    expect(second.body.code).to.equal('invalid_code');
  });

  it('when the SMTP server refuses, send-otp answers 503 email_unavailable', async () => {
    const refusing = await startSmtpSink({ onRcptTo: (_a, _s, cb) => cb(new Error('mailbox unavailable')) });
    const down = await startTestService({ domain: { env: { SMTP_URL: refusing.url } } });
    try {
      const r = await client(down.url).post('/auth/send-otp', { email: 'someone@example.com' });
      expect(r.status).to.equal(503);
      expect(r.body.code).to.equal('email_unavailable');
    } finally {
      await down.close();
      await refusing.close();
    }
  });
});

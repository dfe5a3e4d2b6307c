import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { MailUnavailableError, openMailer, smtpMailer, type Mailer } from '../../src/mail/index.js';
import { parseMail, startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';

const FROM = 'Data Sharing <no-reply@sharing.test>';
const mail = { to: 'ada@example.org', subject: 'Your sign-in code', text: 'Your code is 123456. It expires in 10 minutes.' };

async function sendError(mailer: Mailer): Promise<unknown> {
  try {
    await mailer.send(mail);
    return null;
  } catch (e) {
    return e;
  }
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('SMTP mailer (contract 1, Mail)', function () {
  this.timeout(10_000);
  let sink: SmtpSink | undefined;
  let mailer: Mailer | undefined;
  afterEach(async () => {
    await mailer?.close();
    await sink?.close();
    mailer = sink = undefined;
  });

  it('hands the mail to the server with MAIL_FROM as sender, the recipient, subject and text', async () => {
    sink = await startSmtpSink();
    mailer = smtpMailer({ url: sink.url, from: FROM });
    await mailer.send(mail);

    expect(sink.received).to.have.length(1);
    const [got] = sink.received;
    expect(got?.from).to.equal('no-reply@sharing.test');
    expect(got?.to).to.deep.equal(['ada@example.org']);
    const { headers, body } = parseMail(got?.raw ?? '');
    expect(headers.get('subject')).to.equal(mail.subject);
    expect(headers.get('from')).to.equal(FROM);
    expect(headers.get('to')).to.equal(mail.to);
    expect(headers.get('content-type')).to.match(/^text\/plain/);
    expect(body.trim()).to.equal(mail.text);
  });

  it('openMailer picks SMTP when SMTP_URL is set, sending as MAIL_FROM', async () => {
    sink = await startSmtpSink();
    mailer = openMailer(loadConfig({ SMTP_URL: sink.url, MAIL_FROM: FROM }), pino({ level: 'silent' }));
    await mailer.send(mail);
    expect(sink.received.map((r) => r.from)).to.deep.equal(['no-reply@sharing.test']);
  });

  it('reuses the pool for several mails, including concurrent ones', async () => {
    sink = await startSmtpSink();
    mailer = smtpMailer({ url: sink.url, from: FROM });
    const m = mailer;
    await Promise.all(['a', 'b', 'c'].map((n) => m.send({ ...mail, to: `${n}@example.org` })));
    await m.send({ ...mail, to: 'd@example.org' });
    expect(sink.received.flatMap((r) => r.to).sort()).to.deep.equal(['a@example.org', 'b@example.org', 'c@example.org', 'd@example.org']);
  });

  it('a recipient the server refuses → MailUnavailableError, with no address in message or cause', async () => {
    sink = await startSmtpSink({
      onRcptTo(address, _session, callback) {
        callback(Object.assign(new Error(`5.1.1 <${address.address}>: mailbox unavailable`), { responseCode: 550 }));
      },
    });
    mailer = smtpMailer({ url: sink.url, from: FROM });
    const error = await sendError(mailer);

    expect(error).to.be.instanceOf(MailUnavailableError);
    const e = error as MailUnavailableError;
    expect(e.reason).to.contain('EENVELOPE');
    expect(e.cause).to.be.instanceOf(Error);
    const logged = JSON.stringify({
      message: e.message,
      reason: e.reason,
      cause: String(e.cause),
      stack: (e.cause as Error).stack,
      ...(e.cause as object),
    });
    expect(logged).to.not.contain('ada@example.org');
    expect(sink.received).to.have.length(0);
  });

  it('a closed port → MailUnavailableError in well under 3 s', async () => {
    mailer = smtpMailer({ url: `smtp://127.0.0.1:${await freePort()}`, from: FROM });
    const started = Date.now();
    const error = await sendError(mailer);
    expect(error).to.be.instanceOf(MailUnavailableError);
    expect(Date.now() - started).to.be.below(3_000);
  });

  it('a server that accepts but never greets → MailUnavailableError after the greeting timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s)).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    try {
      mailer = smtpMailer({ url: `smtp://127.0.0.1:${port}`, from: FROM, timeoutMs: 300 });
      const started = Date.now();
      const error = await sendError(mailer);
      expect(error).to.be.instanceOf(MailUnavailableError);
      expect(Date.now() - started).to.be.below(3_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

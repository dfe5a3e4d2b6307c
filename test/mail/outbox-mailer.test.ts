import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { MailUnavailableError, OUTBOX_FILE, openMailer, outboxMailer } from '../../src/mail/index.js';

const mail = { to: 'ada@example.org', subject: 'Your sign-in code', text: 'Your code is 123456.' };

function capturingLogger() {
  const lines: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

const readLines = async (dir: string): Promise<string[]> =>
  (await readFile(join(dir, OUTBOX_FILE), 'utf8')).split('\n').filter((l) => l !== '');

describe('outbox mailer, the embedded default (contract 1, Mail)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'outbox-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('appends one JSON object {to, subject, text, sentAt} per line, creating DATA_DIR', async () => {
    const dataDir = join(root, 'not', 'yet', 'there');
    const { logger } = capturingLogger();
    const mailer = outboxMailer({ dataDir, logger, now: () => new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 6)) });
    await mailer.send(mail);
    await mailer.send({ ...mail, to: 'bob@example.org' });

    const lines = await readLines(dataDir);
    expect(lines).to.have.length(2);
    const first: unknown = JSON.parse(lines[0] ?? '');
    expect(first).to.deep.equal({ ...mail, sentAt: '2025-01-02T03:04:05.006Z' });
    expect(JSON.parse(lines[1] ?? '')).to.include({ to: 'bob@example.org' });
  });

  it('stamps sentAt as ISO 8601 UTC with milliseconds by default', async () => {
    const { logger } = capturingLogger();
    await outboxMailer({ dataDir: root, logger }).send(mail);
    const [line] = await readLines(root);
    expect((JSON.parse(line ?? '') as { sentAt: string }).sentAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('concurrent sends give one complete line each', async () => {
    const { logger } = capturingLogger();
    const mailer = outboxMailer({ dataDir: root, logger });
    const long = 'x'.repeat(20_000);
    await Promise.all(Array.from({ length: 200 }, (_, i) => mailer.send({ ...mail, to: `u${i}@example.org`, text: `${i} ${long}` })));

    const lines = await readLines(root);
    expect(lines).to.have.length(200);
    const recipients = lines
      .map((l) => JSON.parse(l) as { to: string; text: string })
      .map((m) => {
        expect(m.text.endsWith(long)).to.equal(true);
        return m.to;
      });
    expect(new Set(recipients).size).to.equal(200);
  });

  it('a DATA_DIR that is a file → MailUnavailableError', async () => {
    const dataDir = join(root, 'a-file');
    await writeFile(dataDir, 'not a directory');
    const { logger } = capturingLogger();
    const error = await outboxMailer({ dataDir, logger })
      .send(mail)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(MailUnavailableError);
    expect((error as MailUnavailableError).reason).to.match(/^E[A-Z]+/);
  });

  it('logs the code for the developer (contract 1) at debug level only (§10.12), never the address', async () => {
    const { logger, lines } = capturingLogger();
    await outboxMailer({ dataDir: root, logger }).send(mail);
    const parsed = lines.map((l) => JSON.parse(l) as { level: number });
    expect(parsed.map((l) => l.level)).to.deep.equal([30, 20]);
    expect(lines[0]).to.contain('outbox').and.not.to.contain('123456');
    expect(lines[1]).to.contain('123456');
    for (const line of lines) for (const secret of [mail.to, 'ada', 'example.org']) expect(line).to.not.contain(secret);
  });

  it('openMailer picks the outbox when SMTP_URL is unset', async () => {
    const { logger } = capturingLogger();
    const mailer = openMailer(loadConfig({ DATA_DIR: root }), logger);
    await mailer.send(mail);
    await mailer.close();
    expect(await readLines(root)).to.have.length(1);
  });
});

import { MailUnavailableError, type MailMessage, type Mailer } from '../../src/mail/index.js';

/** A mailer that keeps what it was given, and can be told to fail like a dead SMTP server. */
export class RecordingMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  failing = false;

  async send(message: MailMessage): Promise<void> {
    // A hop through the event loop, as a real transport has, so concurrent callers interleave.
    await new Promise((r) => setImmediate(r));
    if (this.failing) throw new MailUnavailableError('test: smtp down');
    this.sent.push(message);
  }

  async close(): Promise<void> {}

  lastCodeFor(to: string): string {
    const mail = [...this.sent].reverse().find((m) => m.to === to);
    const code = mail?.text.match(/\b\d{6}\b/)?.[0];
    if (!code) throw new Error(`no code mailed to ${to}`);
    return code;
  }
}

/** A clock tests move by hand. */
export class TestClock {
  constructor(private t = Date.parse('2026-11-22T10:00:00.000Z')) {}
  now = (): Date => new Date(this.t);
  advance(ms: number): void {
    this.t += ms;
  }
}

import { createTransport } from 'nodemailer';
import { MailUnavailableError, type Mailer, type MailMessage } from './mailer.js';
import { failureReason, maskedError } from './masked-error.js';

export type SmtpMailerOptions = {
  readonly url: string;
  readonly from: string;
  /** Bound on connecting and on waiting for the greeting; the socket idle bound is twice this. */
  readonly timeoutMs?: number;
};

/**
 * Mail through an SMTP relay. A person waits on send-otp for this, so a dead or stalled relay must
 * fail within seconds rather than nodemailer's minutes-long defaults.
 */
export function smtpMailer({ url, from, timeoutMs = 5_000 }: SmtpMailerOptions): Mailer {
  const transport = createTransport(
    {
      url,
      pool: true,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: 2 * timeoutMs,
      dnsTimeout: timeoutMs,
      // One retry covers a pooled connection the relay dropped while idle; more would keep the
      // caller waiting on a relay that keeps hanging up.
      maxRequeues: 1,
      // Messages are plain text built by the service; nothing should make it read files or URLs.
      disableFileAccess: true,
      disableUrlAccess: true,
    },
    { from },
  );

  return {
    async send({ to, subject, text }: MailMessage): Promise<void> {
      try {
        await transport.sendMail({ to, subject, text });
      } catch (e) {
        throw new MailUnavailableError(failureReason(e), maskedError(e));
      }
    },
    async close(): Promise<void> {
      transport.close();
    },
  };
}

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** Where the service under bench delivers its mail: the bench reads login codes from it as a person reads a mailbox. */
export type MailSink = {
  /** SMTP_URL for the service. */
  readonly url: string;
  /** The newest one-time code mailed to `email`, waiting briefly for it to arrive. */
  codeFor(email: string): Promise<string>;
  close(): Promise<void>;
};

const CODE = /\b\d{6}\b/;

/**
 * A real SMTP server on a free local port. It keeps only the newest code per address: the bench
 * logs in thousands of people, and a code is all it needs of a mail (contract §1: the text body
 * holds the 6-digit code and no other 6-digit number).
 */
export async function startMailSink(): Promise<MailSink> {
  const codes = new Map<string, string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Far more parallel sends than a real relay sees: every bench connection may be logging in.
    maxClients: 1000,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const code = codeIn(Buffer.concat(chunks).toString('utf8'));
        if (code) for (const rcpt of session.envelope.rcptTo) codes.set(rcpt.address.toLowerCase(), code);
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    async codeFor(email) {
      // send-otp answers after the relay accepted the mail, so the code is normally there already.
      for (let i = 0; i < 100; i++) {
        const code = codes.get(email.toLowerCase());
        if (code) {
          codes.delete(email.toLowerCase());
          return code;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no code was mailed to ${email}`);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The code in a raw message's body: after the headers, with quoted-printable soft line breaks undone. */
function codeIn(raw: string): string | null {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4).replace(/=\r\n/g, '');
  return CODE.exec(body)?.[0] ?? null;
}

import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE, privateDir } from '../data-dir.js';
import type { Logger } from '../logger.js';
import { MailUnavailableError, type Mailer, type MailMessage } from './mailer.js';
import { failureReason, maskedError } from './masked-error.js';

export type OutboxMailerOptions = {
  readonly dataDir: string;
  readonly logger: Logger;
  readonly now?: () => Date;
};

export const OUTBOX_FILE = 'outbox.log';

/**
 * The embedded stand-in for SMTP: each mail becomes one JSON line in <DATA_DIR>/outbox.log, where a
 * developer (or a test) reads the code. R-AUTH-19 has the code logged too, at debug level (this
 * mailer never runs in production); the address stays out, it is personal data.
 */
export function outboxMailer({ dataDir, logger, now = () => new Date() }: OutboxMailerOptions): Mailer {
  const file = join(dataDir, OUTBOX_FILE);
  return {
    async send({ to, subject, text }: MailMessage): Promise<void> {
      const line = `${JSON.stringify({ to, subject, text, sentAt: now().toISOString() })}\n`;
      try {
        // Every send re-creates the directory, so deleting data/ while running costs no mail.
        await privateDir(dataDir);
        // One O_APPEND write per whole line: concurrent sends cannot interleave within a line.
        await appendFile(file, line, { encoding: 'utf8', mode: PRIVATE_FILE_MODE });
      } catch (e) {
        throw new MailUnavailableError(failureReason(e), maskedError(e));
      }
      logger.info({ outbox: file, subject }, 'mail written to the outbox');
      // The text holds login codes: at debug level only, so a shipped info log never does (R-AUTH-19).
      logger.debug({ outbox: file, text }, 'mail text');
    },
    async close(): Promise<void> {},
  };
}

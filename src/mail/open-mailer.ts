import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Mailer } from './mailer.js';
import { outboxMailer } from './outbox-mailer.js';
import { smtpMailer } from './smtp-mailer.js';

/** SMTP when SMTP_URL is set, else the embedded outbox file (config refuses that in production). */
export function openMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>, logger: Logger): Mailer {
  if (config.smtpUrl) {
    // The URL may carry credentials, so only the kind of transport is logged.
    logger.info({ mail: 'smtp' }, 'mail goes out through SMTP');
    return smtpMailer({ url: config.smtpUrl, from: config.mailFrom });
  }
  const mailer = outboxMailer({ dataDir: config.dataDir, logger });
  logger.info({ mail: 'outbox', dataDir: config.dataDir }, 'mail is written to the outbox file in DATA_DIR');
  return mailer;
}

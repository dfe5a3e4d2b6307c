export { MailUnavailableError, type Mailer, type MailMessage } from './mailer.js';
export { openMailer } from './open-mailer.js';
export { smtpMailer, type SmtpMailerOptions } from './smtp-mailer.js';
export { outboxMailer, OUTBOX_FILE, type OutboxMailerOptions } from './outbox-mailer.js';
export { inertName } from './inert-name.js';

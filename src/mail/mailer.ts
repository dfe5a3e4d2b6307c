/** One plain-text mail to one address; the sender is the deployment's MAIL_FROM. */
export type MailMessage = { readonly to: string; readonly subject: string; readonly text: string };

/** The port every part of the service sends mail through. */
export interface Mailer {
  /** Resolves once the mail is handed over; rejects only with MailUnavailableError. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/**
 * The one failure send() reports, whatever went wrong underneath, so the API has a single case to
 * map to 503 email_unavailable. `reason` is safe to log; `cause` is the underlying error with mail
 * addresses masked, because server replies and nodemailer errors tend to quote the recipient.
 */
export class MailUnavailableError extends Error {
  override readonly name = 'MailUnavailableError';
  constructor(
    readonly reason: string = 'unknown',
    cause?: Error,
  ) {
    super(`mail could not be handed over (${reason})`, cause ? { cause } : undefined);
  }
}

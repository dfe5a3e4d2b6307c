import { inertName, type MailMessage } from '../mail/index.js';

/**
 * R-HOOK-07: the mail to each member_manage member when a webhook is disabled, naming the
 * organization (quoted and inert, as in member mails) and the page that lists its webhooks.
 */
export function webhookDisabledMail(to: string, organizationName: string, webhookId: string, page: string): MailMessage {
  const organization = inertName(organizationName);
  return {
    to,
    subject: `A webhook of the organization "${organization}" was disabled`,
    text:
      `Every delivery to the webhook ${webhookId} of the organization "${organization}" has failed for 5 days, ` +
      'so it was disabled: nothing more is sent to it.\n\n' +
      "The name was chosen by the organization; the link below is the service's own. " +
      `To see its delivery log, and to create it again once the endpoint answers, sign in and open:\n${page}\n`,
  };
}

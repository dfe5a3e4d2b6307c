import { inertName, type MailMessage } from '../mail/index.js';

/**
 * §11: the mail to an address just added as a member, naming the organization and the page to open
 * (`{BASE_URL}/org/{organizationId}/requests`), the only link in it. The name is the founder's
 * choice, so it is quoted, marked as theirs, and made inert (inertName), as in invitation mails.
 */
export function memberAddedMail(to: string, organizationName: string, page: string): MailMessage {
  const organization = inertName(organizationName);
  return {
    to,
    subject: `You are now a member of the organization "${organization}"`,
    text:
      `You were added as a member of the organization "${organization}".\n\n` +
      "The name was chosen by the organization; the link below is the service's own. " +
      `To see its requests, sign in and open:\n${page}\n`,
  };
}

import { inertName as inert, type MailMessage } from '../mail/index.js';

/**
 * The invitation mail, linking to the request's page (§11: `{BASE_URL}/requests/{requestId}`), the
 * only link in it. Both names are chosen by whoever founded the organization, so they are
 * quoted, marked as its own, and made inert (inertName).
 */
export function invitationMail(to: string, organizationName: string, manifestName: string, page: string): MailMessage {
  const organization = inert(organizationName);
  return {
    to,
    subject: `Data request from the organization "${organization}"`,
    text:
      `The organization "${organization}" asks you to share data for its request "${inert(manifestName)}".\n\n` +
      "Both names were chosen by the organization; the link below is the service's own. " +
      `To review the request, sign in and open its page:\n${page}\n`,
  };
}

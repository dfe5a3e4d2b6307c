import type { MailMessage } from '../mail/index.js';

/**
 * The invitation mail. Both names are chosen by whoever founded the organization, so they are
 * quoted and marked as its own, and made inert: a dot, colon or at sign inside a run of text is
 * bracketed ("evil[.]example"), so no mail client turns a name into a link or an address.
 */
export function invitationMail(to: string, organizationName: string, manifestName: string): MailMessage {
  const organization = inert(organizationName);
  return {
    to,
    subject: `Data request from the organization "${organization}"`,
    text:
      `The organization "${organization}" asks you to share data for its request "${inert(manifestName)}".\n\n` +
      'Both names were chosen by the organization. ' +
      'To review the request, sign in to the service as you usually do; this mail has no link.\n',
  };
}

/** Also the full-width and ideographic forms, which some clients read as dots, colons and at signs. */
function inert(name: string): string {
  return name.replace(/(?<=\S)[.:@\u3002\uFF0E\uFF61\uFF1A\uFF20](?=\S)/gu, (c) => `[${c}]`);
}

import type { Refusal } from '../commands/refusal.js';
import { Allowance, DAY_MS, type AllowanceDeps, type WordedLimit } from '../limits/allowance.js';
import type { Member } from '../organizations/index.js';

/** INVITES_PER_*_PER_DAY. */
export type InvitationLimits = {
  /** Per person, across every organization they belong to: founding more organizations adds nothing. */
  readonly perMemberPerDay: number;
  readonly perOrgPerDay: number;
  /** Per organization and recipient address, so no one organization can mail-bomb a person. */
  readonly perRecipientPerDay: number;
};

/**
 * Invitations mail any address from the service's domain, so each one takes a slot in three
 * sliding daily windows (member, organization, recipient) before anything is written.
 */
export class InvitationAllowance {
  private readonly allowance: Allowance;

  constructor(private readonly deps: AllowanceDeps & { readonly limits: InvitationLimits }) {
    this.allowance = new Allowance(deps);
  }

  /** Takes a slot for the invitation `requestId`, or answers rate_limited having taken none. */
  reserve(member: Member, recipientEmail: string, requestId: string): Promise<Refusal | null> {
    const { limits } = this.deps;
    const counted: WordedLimit[] = [
      {
        bucket: `invite-member:${member.identityId}`,
        max: limits.perMemberPerDay,
        windowMs: DAY_MS,
        message: 'you have sent too many invitations today; try again later',
      },
      {
        bucket: `invite-org:${member.organizationId}`,
        max: limits.perOrgPerDay,
        windowMs: DAY_MS,
        message: 'this organization has sent too many invitations today; try again later',
      },
      {
        bucket: `invite-recipient:${member.organizationId}:${recipientEmail}`,
        max: limits.perRecipientPerDay,
        windowMs: DAY_MS,
        message: 'this organization has invited this address too often today; try again later',
      },
    ];
    return this.allowance.reserve(counted, requestId);
  }

  /** Gives the slot back: the invitation was refused after all, so nothing was sent. */
  release(requestId: string): Promise<void> {
    return this.allowance.release(requestId);
  }
}

import { createHmac, hkdfSync } from 'node:crypto';

/**
 * R-REQ-16: a participant's alias is pairwise. The same (organization, party) always gives the
 * same alias — across connections, restarts, instances and MASTER_KEY rotations, because the key
 * derives from the service vault's data key — while two organizations get unrelated aliases,
 * and no alias reveals a vault id (it is a keyed hash, not an encoding).
 */
export class ParticipantAliases {
  private readonly key: Buffer;

  constructor(rootKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), 'participant-alias-v1', 32));
  }

  aliasFor(organizationId: string, partyId: string): string {
    const mac = createHmac('sha256', this.key).update(`${organizationId}\u0000${partyId}`).digest('base64url');
    return `p_${mac.slice(0, 22)}`;
  }
}

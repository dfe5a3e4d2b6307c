import { createHmac, hkdfSync } from 'node:crypto';

/**
 * A pairwise alias: a keyed hash of (organization, id). The same pair always gives the same alias
 * — across requests, restarts, instances and MASTER_KEY rotations, because the key derives from
 * the service vault's data key — while two organizations get unrelated aliases, and no alias
 * reveals the id (it is a keyed hash, not an encoding). Each kind of alias has a key of its own.
 */
class PairwiseAliases {
  private readonly key: Buffer;

  constructor(
    rootKey: Buffer,
    info: string,
    private readonly prefix: string,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), info, 32));
  }

  aliasFor(organizationId: string, id: string): string {
    const mac = createHmac('sha256', this.key).update(`${organizationId}\u0000${id}`).digest('base64url');
    return `${this.prefix}${mac.slice(0, 22)}`;
  }
}

/** R-REQ-16: a participant's alias is pairwise, per (organization, party). */
export class ParticipantAliases extends PairwiseAliases {
  constructor(rootKey: Buffer) {
    super(rootKey, 'participant-alias-v1', 'p_');
  }
}

/** R-HIST-03: how the person sees an organization's member, per (organization, member); never a participant's alias. */
export class MemberAliases extends PairwiseAliases {
  constructor(rootKey: Buffer) {
    super(rootKey, 'member-alias-v1', 'm_');
  }
}

/** Contract §13: the person as an organization's app knows them (the access token's `sub`), per (organization, person). */
export class SubjectAliases extends PairwiseAliases {
  constructor(rootKey: Buffer) {
    super(rootKey, 'partner-subject-v1', 's_');
  }
}

import type { Caller } from '../identity/identity-service.js';
import { isUuid } from '../ids.js';
import { organizationDecider } from '../commands/organizations/organization-decider.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import type { Permission } from '../events/organization-events.js';
import { organizationStreams as streams } from '../events/organization-events.js';
import type { Logger } from '../logger.js';
import { keyState, type KeyState } from './key-warmth.js';
import type { Member } from './member.js';
import { organizationSql as q, type KeyRow } from './organization-queries.js';

/** What a member's sign-in answers (R-ORG-02, POST /org/v1/token). */
export type MemberToken = {
  readonly token: string;
  readonly expiresAt: string;
  readonly organizationId: string;
  readonly permissions: readonly Permission[];
};

export type OrganizationKeyDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly logger: Logger;
  readonly now: () => Date;
  /** ORG_KEY_WARM_SECONDS. */
  readonly warmSeconds: number;
  /** When this process started: warmth written before it does not count (key-warmth.ts). */
  readonly startedAt: Date;
  /** The signed member token for the caller's session, in membership `membership`; null when that session has ended meanwhile. */
  readonly signToken: (
    caller: Caller,
    organizationId: string,
    permissions: readonly Permission[],
    membership: string,
  ) => Promise<{ token: string; expiresAt: string } | null>;
};

/**
 * Member sign-in and the organization key's warm window (R-ORG-02, R-ORG-10). The KeyWarmed a
 * sign-in writes is what the drain reactor reads from the log (R-KEEP-11): nothing reacts inline,
 * so the token is answered before the drain it triggers has run.
 */
export class OrganizationKey {
  constructor(private readonly deps: OrganizationKeyDeps) {}

  /** POST /org/v1/token: a member token for the caller's session; the key becomes warm. */
  async signIn(caller: Caller, organizationId: string, context: EventContext): Promise<MemberToken | Refusal> {
    if (!isUuid(organizationId)) return refuse('not_found', 'no such organization');
    const signedIn = await handle(
      this.deps,
      streams.organization(organizationId),
      organizationDecider,
      { type: 'SignInMember', data: { organizationId, email: caller.email, now: this.deps.now(), warmSeconds: this.deps.warmSeconds } },
      { context },
    );
    if (isRefusal(signedIn)) return signedIn;
    const permissions = signedIn.state.status === 'active' ? (signedIn.state.members.get(caller.email) ?? []) : [];
    // R-ACC-04: the token names the membership it is issued in; one removed since has no row.
    const membership = (await this.deps.readModels.query<{ membership_id: string }>(q.membershipId, [organizationId, caller.email]))
      .rows[0];
    if (!membership) return refuse('not_found', 'no such organization');
    const token = await this.deps.signToken(caller, organizationId, permissions, membership.membership_id);
    if (!token) return refuse('unauthenticated', 'the session has ended');
    return { ...token, organizationId, permissions };
  }

  async state(organizationId: string): Promise<KeyState> {
    return this.stateOf((await this.deps.readModels.query<KeyRow>(q.key, [organizationId])).rows[0] ?? null);
  }

  /** The state of the key columns read with another row (a request's), now. */
  stateOf(row: KeyRow | null): KeyState {
    const record = row ? { warmUntil: date(row.key_warm_until), warmedAt: date(row.key_warmed_at) } : null;
    return keyState(record, this.deps.now(), this.deps.startedAt);
  }

  async seal(actor: Member, context: EventContext): Promise<KeyState | Refusal> {
    const sealed = await handle(
      this.deps,
      streams.organization(actor.organizationId),
      organizationDecider,
      { type: 'SealKey', data: { organizationId: actor.organizationId, actorEmail: actor.email } },
      { context },
    );
    return isRefusal(sealed) ? sealed : { state: 'cold' };
  }
}

const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

import { randomUUID } from 'node:crypto';
import { emailClaimDecider } from '../commands/identity/email-claim-decider.js';
import { sessionDecider } from '../commands/identity/session-decider.js';
import { partnerIdentityDecider } from '../commands/identity/partner-identity-decider.js';
import { userDecider } from '../commands/identity/user-decider.js';
import { fold } from '../commands/decider.js';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import { readDecoded } from '../events/decoder.js';
import type { EventContext } from '../events/envelope.js';
import { identityStreams as streams } from '../events/identity-events.js';
import type { ClientAddress } from '../limits/client-address.js';
import type { Email } from './email.js';
import { isUuid } from '../ids.js';
import { identitySql as q } from './identity-queries.js';
import type { MembershipRow } from '../organizations/organization-queries.js';
import type { OtpService } from './otp/otp-service.js';
import type { OtpSecrets } from './otp/secrets.js';
import type { TokenIssuer } from './tokens/index.js';

/** Who is calling, once the token and its session checked out. */
export type Caller = { readonly identityId: string; readonly sessionId: string; readonly email: string };

export type SessionToken = { readonly token: string; readonly expiresAt: string };
export type LoginSession = SessionToken & { readonly isNewUser: boolean };

/** Contract §13: who a person is at a partner's OpenID Connect provider (the ID token's iss and sub). */
export type PartnerSubject = { readonly issuer: string; readonly subject: string };

/** The keyed hash's input for a partner identity: the issuer and subject, apart by a byte neither may hold. */
const partnerKey = (partner: PartnerSubject): string => `${partner.issuer}\u0000${partner.subject}`;

export type Me = {
  readonly userId: string | null;
  readonly email: string;
  readonly verifiedEmails: readonly string[];
  readonly sessions: ReadonlyArray<{ sessionId: string; createdAt: string; expiresAt: string; current: boolean }>;
};

export type IdentityDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly otp: OtpService;
  readonly secrets: OtpSecrets;
  readonly issuer: TokenIssuer;
  readonly now: () => Date;
};

/** The login and session flows, user.register and user.security (R-AUTH-*, R-GQL-02 to R-GQL-05). */
export class IdentityService {
  constructor(private readonly deps: IdentityDeps) {}

  sendLoginCode(email: Email, client: ClientAddress): Promise<Refusal | null> {
    return this.deps.otp.send(email, 'login', client);
  }

  /** A right code allocates the identity on first use, starts a session and signs its token. */
  async verifyLogin(
    email: Email,
    code: string,
    client: ClientAddress,
    context: (actor: EventContext['actor']) => EventContext,
  ): Promise<LoginSession | Refusal> {
    const account = await this.accountOfCode(email, code, client, context);
    if (isRefusal(account)) return account;
    return this.startSession(account.identityId, email, account.allocated, context({ kind: 'user', id: account.identityId }));
  }

  /**
   * Contract §13, R-PART-08: verifyLogin, and then the partner's identity the person came with is
   * linked to the account of the address whose code they gave, so their next sign-in there is enough.
   */
  async verifyLoginLinking(
    email: Email,
    code: string,
    client: ClientAddress,
    context: (actor: EventContext['actor']) => EventContext,
    partner: PartnerSubject,
  ): Promise<LoginSession | Refusal> {
    const account = await this.accountOfCode(email, code, client, context);
    if (isRefusal(account)) return account;
    const { identityId, allocated } = account;
    const linked = await this.linkedAccount(partner);
    const link = await handle(
      this.deps,
      streams.partnerIdentity(this.deps.secrets.subject(partnerKey(partner))),
      partnerIdentityDecider,
      { type: 'LinkPartnerIdentity', data: { identityId, ...partner, erased: linked.erased } },
      { context: context({ kind: 'user', id: identityId }) },
    );
    if (isRefusal(link)) return link;
    return this.startSession(identityId, email, allocated, context({ kind: 'user', id: identityId }));
  }

  /**
   * Contract §13: a session for the account a partner's identity is linked to, or null when it is
   * linked to none (or to an account since erased): then the person links it with an address's code.
   */
  async signInLinked(
    partner: PartnerSubject,
    context: (actor: EventContext['actor']) => EventContext,
  ): Promise<LoginSession | Refusal | null> {
    const { identityId } = await this.linkedAccount(partner);
    if (identityId === null) return null;
    const row = (await this.deps.readModels.query<{ email: string }>(q.identity, [identityId])).rows[0];
    if (!row) return refuse('conflict', 'the linked account is not ready yet: try again');
    return this.startSession(identityId, row.email, false, context({ kind: 'user', id: identityId }));
  }

  /** The account a partner identity's stream links it to, unless that account is erased (then `erased` names it). */
  private async linkedAccount(partner: PartnerSubject): Promise<{ identityId: string | null; erased: string | null }> {
    const stream = streams.partnerIdentity(this.deps.secrets.subject(partnerKey(partner)));
    const { identityId } = fold(partnerIdentityDecider, await readDecoded(this.deps.store, stream));
    if (identityId === null) return { identityId: null, erased: null };
    const erased = fold(userDecider, await readDecoded(this.deps.store, streams.user(identityId))).erased;
    return erased ? { identityId: null, erased: identityId } : { identityId, erased: null };
  }

  /** A right login code: the address's identity, allocated on first use. */
  private async accountOfCode(
    email: Email,
    code: string,
    client: ClientAddress,
    context: (actor: EventContext['actor']) => EventContext,
  ): Promise<{ identityId: string; allocated: boolean } | Refusal> {
    const wrong = await this.deps.otp.verify(email, 'login', code, client);
    return wrong ?? this.claim(email, context({ kind: 'system', id: 'login' }));
  }

  /** A session of the identity, its token signed; isNewUser until the identity registers. */
  private async startSession(
    identityId: string,
    email: string,
    allocated: boolean,
    context: EventContext,
  ): Promise<LoginSession | Refusal> {
    const sessionId = randomUUID();
    const started = await handle(
      this.deps,
      streams.session(sessionId),
      sessionDecider,
      { type: 'StartSession', data: { sessionId, identityId, email, now: this.deps.now() } },
      { context, newStream: true },
    );
    if (isRefusal(started) || started.state.status !== 'active') return refuse('conflict', 'the session could not be started');
    const { expiresAt } = started.state;
    const token = await this.deps.issuer.userToken({ identityId, sessionId, email, expiresAt: new Date(expiresAt) });
    // An identity allocated by this login cannot have registered yet.
    if (allocated) return { token, expiresAt, isNewUser: true };
    const row = (await this.deps.readModels.query<{ registered_at: unknown }>(q.identity, [identityId])).rows[0];
    return { token, expiresAt, isNewUser: !row?.registered_at };
  }

  /**
   * The address's identity, and whether this claim allocated it; an erased account's address is
   * claimed anew, for a new empty account.
   */
  private async claim(email: Email, context: EventContext): Promise<{ identityId: string; allocated: boolean } | Refusal> {
    const stream = streams.email(this.deps.secrets.subject(email));
    const newIdentityId = randomUUID();
    const claimed = await handle(
      this.deps,
      stream,
      emailClaimDecider,
      { type: 'ClaimEmail', data: { email, newIdentityId, erased: null } },
      { context },
    );
    if (isRefusal(claimed)) return claimed;
    const identityId = claimed.state.identityId!;
    // An identity this claim allocated has no account stream yet, so nothing of it can be erased.
    if (identityId === newIdentityId) return { identityId, allocated: true };
    if (!fold(userDecider, await readDecoded(this.deps.store, streams.user(identityId))).erased) return { identityId, allocated: false };
    const reclaimedId = randomUUID();
    const reclaimed = await handle(
      this.deps,
      stream,
      emailClaimDecider,
      { type: 'ClaimEmail', data: { email, newIdentityId: reclaimedId, erased: identityId } },
      { context },
    );
    return isRefusal(reclaimed)
      ? reclaimed
      : { identityId: reclaimed.state.identityId!, allocated: reclaimed.state.identityId === reclaimedId };
  }

  /** Same session, expiresAt = now + 72 h, a new token; the old token lives to its own exp. */
  async renew(caller: Caller, context: EventContext): Promise<SessionToken | Refusal> {
    const renewed = await handle(
      this.deps,
      streams.session(caller.sessionId),
      sessionDecider,
      { type: 'RenewSession', data: { sessionId: caller.sessionId, now: this.deps.now() } },
      { context },
    );
    if (isRefusal(renewed)) return renewed;
    if (renewed.state.status !== 'active') return refuse('unauthenticated', 'the session has ended');
    const { expiresAt } = renewed.state;
    const token = await this.deps.issuer.userToken({ ...caller, expiresAt: new Date(expiresAt) });
    return { token, expiresAt };
  }

  sendEmailVerification(caller: Caller, email: Email, client: ClientAddress): Promise<Refusal | null> {
    return this.deps.otp.send(email, `verify-email:${caller.identityId}`, client);
  }

  async confirmEmailVerification(
    caller: Caller,
    email: Email,
    code: string,
    client: ClientAddress,
    context: EventContext,
  ): Promise<Refusal | null> {
    const wrong = await this.deps.otp.verify(email, `verify-email:${caller.identityId}`, code, client);
    if (wrong) return wrong;
    const done = await handle(
      this.deps,
      streams.user(caller.identityId),
      userDecider,
      { type: 'VerifySecondaryEmail', data: { identityId: caller.identityId, email, sessionId: caller.sessionId } },
      { context },
    );
    return isRefusal(done) ? done : null;
  }

  async register(caller: Caller, displayName: string | null, context: EventContext): Promise<{ userId: string } | Refusal> {
    const done = await handle(
      this.deps,
      streams.user(caller.identityId),
      userDecider,
      { type: 'RegisterUser', data: { identityId: caller.identityId, displayName } },
      { context },
    );
    return isRefusal(done) ? done : { userId: caller.identityId };
  }

  async isRegistered(caller: Caller): Promise<boolean> {
    const row = (await this.deps.readModels.query<{ registered_at: unknown }>(q.identity, [caller.identityId])).rows[0];
    return Boolean(row?.registered_at);
  }

  /**
   * Whether a token's session still stands (checked on every request, on every instance), and
   * whether its person has registered: null for a session revoked, expired or unknown.
   */
  async liveSession(identityId: string, sessionId: string): Promise<{ registered: boolean } | null> {
    if (!isUuid(sessionId) || !isUuid(identityId)) return null;
    const row = (await this.deps.readModels.query<{ registered: boolean }>(q.liveSession, [sessionId, identityId, this.deps.now()]))
      .rows[0];
    return row ? { registered: row.registered } : null;
  }

  /** liveSession, with the address's membership row of `organizationId` while it is membership `membershipId`. */
  async liveMemberSession(
    identityId: string,
    sessionId: string,
    organizationId: string,
    email: string,
    membershipId: string,
  ): Promise<{ registered: boolean; membership: MembershipRow | null } | null> {
    if (!isUuid(sessionId) || !isUuid(identityId) || !isUuid(organizationId) || !isUuid(membershipId)) return null;
    const row = (
      await this.deps.readModels.query<{ registered: boolean; permissions: string[] | null }>(q.liveMemberSession, [
        sessionId,
        identityId,
        this.deps.now(),
        organizationId,
        email,
        membershipId,
      ])
    ).rows[0];
    if (!row) return null;
    const { registered, permissions } = row;
    return { registered, membership: permissions === null ? null : { permissions } };
  }

  async revokeSession(caller: Caller, sessionId: string, context: EventContext): Promise<true | Refusal> {
    if (!isUuid(sessionId)) return refuse('not_found', 'no such session');
    const done = await handle(
      this.deps,
      streams.session(sessionId),
      sessionDecider,
      { type: 'RevokeSession', data: { sessionId, identityId: caller.identityId } },
      { context },
    );
    return isRefusal(done) ? done : true;
  }

  /** Ends every live session of the caller (the current one too when asked); answers how many. */
  async revokeAllSessions(caller: Caller, includingCurrent: boolean, context: EventContext): Promise<number | Refusal> {
    const live = (await this.deps.readModels.query<{ session_id: string }>(q.liveSessionIdsOf, [caller.identityId, this.deps.now()])).rows
      .map((r) => r.session_id)
      .filter((id) => includingCurrent || id !== caller.sessionId);
    const done = await handle(
      this.deps,
      streams.user(caller.identityId),
      userDecider,
      { type: 'RevokeAllSessions', data: { identityId: caller.identityId, liveSessionIds: live } },
      { context },
    );
    return isRefusal(done) ? done : live.length;
  }

  /** Who the caller is, with their live sessions: two reads, sent together. */
  async me(caller: Caller): Promise<Me> {
    const [account, sessions] = await Promise.all([this.account(caller), this.liveSessions(caller)]);
    return { ...account, sessions };
  }

  /** Who the caller is, without their sessions: GraphQL's `me` reads those only when a query asks (`Me.sessions`). */
  async account(caller: Caller): Promise<Omit<Me, 'sessions'>> {
    const identity = (
      await this.deps.readModels.query<{ registered_at: unknown; email: string; verified_emails: string[] }>(q.identity, [
        caller.identityId,
      ])
    ).rows[0];
    return {
      userId: identity?.registered_at ? caller.identityId : null,
      email: identity?.email ?? caller.email,
      verifiedEmails: identity?.verified_emails ?? [],
    };
  }

  /** The caller's sessions that are neither revoked nor ended, newest first, the caller's own marked. */
  async liveSessions(caller: Caller): Promise<Me['sessions']> {
    const now = this.deps.now().getTime();
    return (
      await this.deps.readModels.query<{ session_id: string; created_at: Date; expires_at: Date; revoked_at: Date | null }>(q.sessionsOf, [
        caller.identityId,
      ])
    ).rows
      .filter((s) => s.revoked_at === null && new Date(s.expires_at).getTime() > now)
      .map((s) => ({
        sessionId: s.session_id,
        createdAt: iso(s.created_at),
        expiresAt: iso(s.expires_at),
        current: s.session_id === caller.sessionId,
      }));
  }
}

function iso(d: Date | string): string {
  return new Date(d).toISOString();
}

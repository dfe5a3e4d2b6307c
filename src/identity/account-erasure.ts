import { userDecider } from '../commands/identity/user-decider.js';
import { isRefusal, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { EventContext } from '../events/envelope.js';
import { identityStreams as streams } from '../events/identity-events.js';
import type { ClientAddress } from '../limits/client-address.js';
import type { PersonRequests, StateChange } from '../requests/index.js';
import type { RequestStateName } from '../requests/request-status.js';
import type { VaultKeyring } from '../vaults/keyring.js';
import type { Email } from './email.js';
import type { Caller } from './identity-service.js';
import type { OtpPurpose, OtpService } from './otp/otp-service.js';

export type AccountErasureDeps = CommandDeps & {
  readonly otp: Pick<OtpService, 'send' | 'verify'>;
  readonly keyring: Pick<VaultKeyring, 'erase'>;
  readonly requests: Pick<PersonRequests, 'mine' | 'change'>;
};

/** How erasure closes each open request: as the recipient would, so organizations see it in state and history. */
const closing: Partial<Record<RequestStateName, StateChange>> = { pending: 'reject', active: 'revoke', suspended: 'revoke' };
/** Passes over the open requests: a request that moved meanwhile (pending to active) is closed on the next. */
const CLOSING_PASSES = 3;

/** Bound to the account, so neither a login code nor another account's code confirms it. */
const purposeOf = (caller: Caller): OtpPurpose => `erase-account:${caller.identityId}`;

/**
 * user.security.requestErasure and eraseAccount (R-ERAS-01 to R-ERAS-05). Every step is
 * idempotent and AccountErased comes last: until it is written the person's sessions still work,
 * so a crash part-way is finished by calling eraseAccount again with a new code. Once it is
 * written the sessions end and the address is free; nothing needs the person after that.
 */
export class AccountErasure {
  constructor(private readonly deps: AccountErasureDeps) {}

  /** Mails the code to the login address, under the login code's limits (the same send buckets). */
  requestCode(caller: Caller, client: ClientAddress): Promise<Refusal | null> {
    // The login address, normalized when the session started.
    return this.deps.otp.send(caller.email as Email, purposeOf(caller), client);
  }

  async erase(caller: Caller, code: string, client: ClientAddress, context: EventContext): Promise<true | Refusal> {
    const wrong = await this.deps.otp.verify(caller.email as Email, purposeOf(caller), code, client);
    if (wrong) return wrong;
    await this.closeRequests(caller, context);
    // A person's own vault has the identity's id (src/vaults/vault-access.ts).
    await this.deps.keyring.erase(caller.identityId);
    const done = await handle(
      this.deps,
      streams.user(caller.identityId),
      userDecider,
      { type: 'EraseAccount', data: { identityId: caller.identityId } },
      { context },
    );
    return isRefusal(done) ? done : true;
  }

  private async closeRequests(caller: Caller, context: EventContext): Promise<void> {
    for (let pass = 0; pass < CLOSING_PASSES; pass++) {
      const open = (await this.deps.requests.mine(caller)).flatMap((r) => {
        const change = closing[r.state];
        return change ? [{ requestId: r.requestId, change }] : [];
      });
      if (open.length === 0) return;
      // A refusal here is a request another hand closed or moved meanwhile: the next pass sees it.
      for (const r of open) await this.deps.requests.change(caller, r.requestId, r.change, context);
    }
  }
}

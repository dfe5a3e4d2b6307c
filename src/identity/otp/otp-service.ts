import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { refuse, type Refusal } from '../../commands/refusal.js';
import type { SqlDb } from '../../db/sql.js';
import type { ClientAddress } from '../../limits/client-address.js';
import type { Limit, SlidingWindows } from '../../limits/sliding-windows.js';
import { MailUnavailableError, type Mailer } from '../../mail/index.js';
import type { Email } from '../email.js';
import { generateCode, hasCodeShape } from './code.js';
import { otpSql as q } from './otp-queries.js';
import { OtpSecrets } from './secrets.js';

/**
 * The code limits (R-AUTH-05, R-AUTH-06, R-AUTH-08: the tries of a code, per client address), and
 * the windows of those the settings give (R-LIM-08).
 */
export const OTP_LIMITS = {
  sendsPerHour: 3,
  codeLifetimeMs: 15 * 60_000,
  attemptsPerCode: 5,
  windowMs: 60 * 60_000,
  failureWindowMs: 24 * 60 * 60_000,
} as const;

type OtpLimit = Limit & { readonly message: string };

/**
 * 'login', proving control of a secondary address for one identity, or confirming the erasure of
 * one identity's account. A code answers only for its own purpose (codeHash binds it).
 */
export type OtpPurpose = 'login' | `verify-email:${string}` | `erase-account:${string}`;

export type OtpDeps = {
  readonly db: SqlDb;
  readonly windows: SlidingWindows;
  readonly secrets: OtpSecrets;
  readonly mailer: Mailer;
  readonly now: () => Date;
  /** Failed verifications of sent codes per address per day before every verify is refused (OTP_DAILY_FAILURE_CAP). */
  readonly dailyFailureCap: number;
  /**
   * Failed verifications of sent codes per address per day from one client address before every verify
   * from it is refused (OTP_FAILURES_PER_ADDRESS_AND_CLIENT_PER_DAY; below dailyFailureCap, see loadConfig).
   */
  readonly failuresPerAddressAndClientPerDay: number;
  /** Codes one client address may have sent per hour, to any addresses (OTP_SENDS_PER_CLIENT_PER_HOUR). */
  readonly sendsPerClientPerHour: number;
  /** Failed verifications one client address may make per hour (OTP_FAILURES_PER_CLIENT_PER_HOUR). */
  readonly failuresPerClientPerHour: number;
};

/**
 * Email one-time codes. Every limit lives in the database under row locks (src/limits), so it
 * holds across restarts, instances and concurrent calls. Known and unknown addresses take the
 * same path: nothing here knows whether an account exists.
 */
export class OtpService {
  private constructor(private readonly deps: OtpDeps) {}

  static async open(deps: OtpDeps): Promise<OtpService> {
    await deps.db.exec(await readFile(new URL('./otp.sql', import.meta.url), 'utf8'));
    return new OtpService(deps);
  }

  async send(email: Email, purpose: OtpPurpose, client: ClientAddress): Promise<Refusal | null> {
    const { db, windows, secrets, mailer, now } = this.deps;
    const subject = secrets.subject(email);
    const code = generateCode();
    const sendId = randomUUID();
    const at = now();
    const sendLimits: OtpLimit[] = [
      {
        bucket: `otp-send:${subject}`,
        max: OTP_LIMITS.sendsPerHour,
        windowMs: OTP_LIMITS.windowMs,
        message: 'too many codes sent to this address; try again later',
      },
      {
        bucket: `otp-send-client:${client}`,
        max: this.deps.sendsPerClientPerHour,
        windowMs: OTP_LIMITS.windowMs,
        message: 'too many codes requested from this network address; try again later',
      },
    ];
    const reserved = await db.transaction(async (tx) => {
      const blocked = await windows.take(tx, sendLimits, sendId, at);
      if (blocked) return refuse('rate_limited', blocked.limit.message, blocked.retryAfter);
      await tx.query(q.replaceCode, [
        subject,
        purpose,
        secrets.codeHash(subject, purpose, code),
        sendId,
        new Date(at.getTime() + OTP_LIMITS.codeLifetimeMs),
      ]);
      return null;
    });
    if (reserved) return reserved;
    try {
      await mailer.send({ to: email, ...mailOf(purpose, code) });
      return null;
    } catch (e) {
      if (!(e instanceof MailUnavailableError)) throw e;
      await db.transaction(async (tx) => {
        await tx.query(q.forgetCode, [sendId]);
        await windows.forget(tx, sendId);
      });
      return refuse('email_unavailable', 'the email service is unavailable; try again later');
    }
  }

  /**
   * Null when the code is right; then it is used up. R-LIM-15 (contract §10.9): what a client address
   * spends on wrong codes (a code's tries, its failures against an address) is its own, and it can
   * spend less against an address than the address's daily cap, so a flood of wrong codes from one
   * network address never keeps the owner out from another (docs/security.md gives the odds).
   */
  async verify(email: Email, purpose: OtpPurpose, code: string, client: ClientAddress): Promise<Refusal | null> {
    const { db, windows, secrets, now } = this.deps;
    const subject = secrets.subject(email);
    const at = now();
    const day = OTP_LIMITS.failureWindowMs;
    const againstAddress: OtpLimit[] = [
      {
        bucket: `otp-failure:${subject}`,
        max: this.deps.dailyFailureCap,
        windowMs: day,
        message: 'too many failed attempts for this address; try again later',
      },
      {
        bucket: `otp-failure:${subject}:${client}`,
        max: this.deps.failuresPerAddressAndClientPerDay,
        windowMs: day,
        message: 'too many failed attempts for this address from this network address; try again later',
      },
    ];
    const perClient: OtpLimit = {
      bucket: `otp-failure-client:${client}`,
      max: this.deps.failuresPerClientPerHour,
      windowMs: OTP_LIMITS.windowMs,
      message: 'too many failed attempts from this network address; try again later',
    };
    // Hash before taking the lock, and for every input, so timing says nothing about the row.
    const offered = secrets.codeHash(subject, purpose, hasCodeShape(code) ? code : '\u0000invalid');
    return db.transaction(async (tx) => {
      // The code's row first: verifications of one address queue here, those of others do not.
      const row = (
        await tx.query<{ code_hash: string; send_id: string; expires_at: Date | string; used_at: unknown }>(q.lockCode, [subject, purpose])
      ).rows[0];
      const live = row !== undefined && row.used_at === null && new Date(row.expires_at).getTime() > at.getTime();
      const right = live && hasCodeShape(code) && OtpSecrets.matches(row.code_hash, offered);
      const triesOfCode: OtpLimit[] = live
        ? [
            {
              bucket: `otp-code:${row.send_id}:${client}`,
              max: OTP_LIMITS.attemptsPerCode,
              windowMs: OTP_LIMITS.codeLifetimeMs,
              message: 'too many attempts for this code; request a new one',
            },
          ]
        : [];
      const limits = [...againstAddress, perClient, ...triesOfCode];
      // Only a failure is counted, so only failures lock the failure counts and wait for each other
      // (R-AUTH-20); a right code reads them, so the logins of one network address do not queue.
      const blocked = right ? await windows.peek(tx, limits, at) : await windows.check(tx, limits, at);
      if (blocked) return refuse('too_many_attempts', blocked.limit.message, blocked.retryAfter);
      if (right) {
        await tx.query(q.useCode, [subject, purpose, at]);
        return null;
      }
      // Without a live code nothing can be guessed, and counting it against the address would let
      // anyone lock anyone out: it counts against the caller's network address only. A wrong guess
      // is counted under the locks check took, so concurrent guesses cannot exceed any limit.
      await windows.record(tx, live ? limits : [perClient], randomUUID(), at);
      return refuse('invalid_code', 'the code is invalid or has expired');
    });
  }

  /** Deletes codes that can no longer be used (run now and then); limit rows go as their buckets are used. */
  async prune(): Promise<void> {
    const at = this.deps.now().getTime();
    await this.deps.db.query(q.pruneCodes, [new Date(at - OTP_LIMITS.codeLifetimeMs)]);
  }
}

/** The code is the mail's only 6-digit number (R-AUTH-18); the mail says what the code does. */
function mailOf(purpose: OtpPurpose, code: string): { subject: string; text: string } {
  const once = 'It expires in fifteen minutes and works once.';
  if (purpose.startsWith('erase-account:')) {
    return {
      subject: 'Confirm the erasure of your account',
      text:
        `Your code to ERASE your account is ${code}\n\n` +
        'Entering it destroys your documents and files for good, ends every session and closes your requests. ' +
        `${once} If you did not ask for it, do not enter it anywhere and ignore this mail.\n`,
    };
  }
  return {
    subject: 'Your one-time code',
    text: `Your one-time code is ${code}\n\n${once} If you did not ask for it, ignore this mail.\n`,
  };
}

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { refuse, type Refusal } from '../../commands/refusal.js';
import type { SqlDb, SqlExecutor } from '../../db/sql.js';
import { MailUnavailableError, type Mailer } from '../../mail/index.js';
import type { Email } from '../email.js';
import { generateCode, hasCodeShape } from './code.js';
import { otpSql as q } from './otp-queries.js';
import { OtpSecrets } from './secrets.js';

/** Spec §8 limits, and the daily failure cap the issue adds. */
export const OTP_LIMITS = {
  sendsPerHour: 3,
  codeLifetimeMs: 15 * 60_000,
  attemptsPerCode: 5,
  windowMs: 60 * 60_000,
  failureWindowMs: 24 * 60 * 60_000,
} as const;

/** 'login', or proving control of a secondary address for one identity. */
export type OtpPurpose = 'login' | `verify-email:${string}`;

export type OtpDeps = {
  readonly db: SqlDb;
  readonly secrets: OtpSecrets;
  readonly mailer: Mailer;
  readonly now: () => Date;
  /** Failed verifications per address per day before every verify is refused (OTP_DAILY_FAILURE_CAP). */
  readonly dailyFailureCap: number;
};

/**
 * Email one-time codes. Every limit lives in the database under a per-address row lock, so it
 * holds across restarts, instances and concurrent calls. Known and unknown addresses take the
 * same path: nothing here knows whether an account exists.
 */
export class OtpService {
  private constructor(private readonly deps: OtpDeps) {}

  static async open(deps: OtpDeps): Promise<OtpService> {
    await deps.db.exec(await readFile(new URL('./otp.sql', import.meta.url), 'utf8'));
    return new OtpService(deps);
  }

  async send(email: Email, purpose: OtpPurpose): Promise<Refusal | null> {
    const { db, secrets, mailer, now } = this.deps;
    const subject = secrets.subject(email);
    const code = generateCode();
    const sendId = randomUUID();
    const at = now();
    const reserved = await db.transaction(async (tx) => {
      await lockSubject(tx, subject);
      const windowStart = new Date(at.getTime() - OTP_LIMITS.windowMs);
      const sends = (await tx.query<{ n: number; oldest: Date | string | null }>(q.sendsSince, [subject, windowStart])).rows[0]!;
      if (sends.n >= OTP_LIMITS.sendsPerHour) {
        return refuse('rate_limited', 'too many codes sent to this address; try again later', secondsUntil(sends.oldest, OTP_LIMITS.windowMs, at));
      }
      await tx.query(q.recordSend, [sendId, subject, at]);
      await tx.query(q.replaceCode, [subject, purpose, secrets.codeHash(subject, purpose, code), sendId, new Date(at.getTime() + OTP_LIMITS.codeLifetimeMs)]);
      return null;
    });
    if (reserved) return reserved;
    try {
      await mailer.send({ to: email, subject: 'Your one-time code', text: mailText(code) });
      return null;
    } catch (e) {
      if (!(e instanceof MailUnavailableError)) throw e;
      await db.transaction(async (tx) => {
        await tx.query(q.forgetCode, [sendId]);
        await tx.query(q.forgetSend, [sendId]);
      });
      return refuse('email_unavailable', 'the email service is unavailable; try again later');
    }
  }

  /** Null when the code is right; then it is used up. */
  async verify(email: Email, purpose: OtpPurpose, code: string): Promise<Refusal | null> {
    const { db, secrets, now, dailyFailureCap } = this.deps;
    const subject = secrets.subject(email);
    const at = now();
    // Hash before taking the lock, and for every input, so timing says nothing about the row.
    const offered = secrets.codeHash(subject, purpose, hasCodeShape(code) ? code : '\u0000invalid');
    return db.transaction(async (tx) => {
      await lockSubject(tx, subject);
      const dayStart = new Date(at.getTime() - OTP_LIMITS.failureWindowMs);
      const failures = (await tx.query<{ n: number; oldest: Date | string | null }>(q.failuresSince, [subject, dayStart])).rows[0]!;
      if (failures.n >= dailyFailureCap) {
        return refuse('too_many_attempts', 'too many failed attempts for this address; try again later', secondsUntil(failures.oldest, OTP_LIMITS.failureWindowMs, at));
      }
      const row = (await tx.query<{ code_hash: string; expires_at: Date | string; attempts: number; used_at: unknown }>(q.lockCode, [subject, purpose])).rows[0];
      const wrong = async () => {
        await tx.query(q.recordFailure, [subject, at]);
        return refuse('invalid_code', 'the code is invalid or has expired');
      };
      if (!row || row.used_at !== null || new Date(row.expires_at).getTime() <= at.getTime()) return wrong();
      if (row.attempts >= OTP_LIMITS.attemptsPerCode) {
        return refuse('too_many_attempts', 'too many attempts for this code; request a new one', secondsUntil(row.expires_at, 0, at));
      }
      // Counted before the compare, under the lock: concurrent guesses cannot exceed the limit.
      await tx.query(q.countAttempt, [subject, purpose]);
      if (!hasCodeShape(code) || !OtpSecrets.matches(row.code_hash, offered)) return wrong();
      await tx.query(q.markUsed, [subject, purpose, at]);
      return null;
    });
  }

  /** Deletes rows that can no longer affect a limit (run now and then). */
  async prune(): Promise<void> {
    const at = this.deps.now().getTime();
    await this.deps.db.query(q.pruneSends, [new Date(at - OTP_LIMITS.windowMs)]);
    await this.deps.db.query(q.pruneFailures, [new Date(at - OTP_LIMITS.failureWindowMs)]);
    await this.deps.db.query(q.pruneCodes, [new Date(at - OTP_LIMITS.codeLifetimeMs)]);
  }
}

async function lockSubject(tx: SqlExecutor, subject: string): Promise<void> {
  await tx.query(q.ensureSubject, [subject]);
  await tx.query(q.lockSubject, [subject]);
}

/** The code is the mail's only 6-digit number (contract §1). */
function mailText(code: string): string {
  return `Your one-time code is ${code}\n\nIt expires in fifteen minutes and works once. If you did not ask for it, ignore this mail.\n`;
}

function secondsUntil(from: Date | string | null, windowMs: number, now: Date): number {
  if (from === null) return 1;
  return Math.max(1, Math.ceil((new Date(from).getTime() + windowMs - now.getTime()) / 1000));
}

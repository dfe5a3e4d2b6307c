import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Keyed hashes for the OTP tables: codes are stored only as HMACs, and addresses only as
 * HMACs too (the tables say who asked without saying the address). Both keys derive from the
 * service vault's data key (wrapped by MASTER_KEY, kept across its rotation), so a leaked table
 * is useless without the keys.
 */
export class OtpSecrets {
  private readonly codeKey: Buffer;
  private readonly subjectKey: Buffer;

  constructor(rootKey: Buffer) {
    this.codeKey = Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), 'otp-code-v1', 32));
    this.subjectKey = Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), 'otp-subject-v1', 32));
  }

  /** Stable per address: the key of its rate-limit bucket and codes. */
  subject(email: string): string {
    return createHmac('sha256', this.subjectKey).update(email).digest('hex');
  }

  /** Bound to the address and purpose, so a code never counts for another address or use. */
  codeHash(subject: string, purpose: string, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${subject}\u0000${purpose}\u0000${code}`).digest('hex');
  }

  static matches(expectedHex: string, actualHex: string): boolean {
    const a = Buffer.from(expectedHex, 'hex');
    const b = Buffer.from(actualHex, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

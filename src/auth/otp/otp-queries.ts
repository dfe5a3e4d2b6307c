/** The OTP tables' SQL (otp.sql). Times come in as parameters, from the service's clock. */
export const otpSql = {
  ensureSubject: `INSERT INTO auth.otp_subjects (subject) VALUES ($1) ON CONFLICT DO NOTHING`,
  lockSubject: `SELECT subject FROM auth.otp_subjects WHERE subject = $1 FOR UPDATE`,
  sendsSince: `SELECT count(*)::int AS n, min(sent_at) AS oldest FROM auth.otp_sends WHERE subject = $1 AND sent_at > $2`,
  recordSend: `INSERT INTO auth.otp_sends (send_id, subject, sent_at) VALUES ($1, $2, $3)`,
  replaceCode: `
    INSERT INTO auth.otp_codes (subject, purpose, code_hash, send_id, expires_at, attempts, used_at)
    VALUES ($1, $2, $3, $4, $5, 0, NULL)
    ON CONFLICT (subject, purpose) DO UPDATE
    SET code_hash = EXCLUDED.code_hash, send_id = EXCLUDED.send_id, expires_at = EXCLUDED.expires_at,
        attempts = 0, used_at = NULL`,
  /** Undoes a send whose mail never left: its allowance is not consumed and its code never works. */
  forgetSend: `DELETE FROM auth.otp_sends WHERE send_id = $1`,
  forgetCode: `DELETE FROM auth.otp_codes WHERE send_id = $1`,
  failuresSince: `SELECT count(*)::int AS n, min(failed_at) AS oldest FROM auth.otp_failures WHERE subject = $1 AND failed_at > $2`,
  recordFailure: `INSERT INTO auth.otp_failures (subject, failed_at) VALUES ($1, $2)`,
  lockCode: `SELECT code_hash, expires_at, attempts, used_at FROM auth.otp_codes WHERE subject = $1 AND purpose = $2 FOR UPDATE`,
  countAttempt: `UPDATE auth.otp_codes SET attempts = attempts + 1 WHERE subject = $1 AND purpose = $2`,
  markUsed: `UPDATE auth.otp_codes SET used_at = $3 WHERE subject = $1 AND purpose = $2`,
  /** Housekeeping: what can no longer affect any limit. */
  pruneSends: `DELETE FROM auth.otp_sends WHERE sent_at < $1`,
  pruneFailures: `DELETE FROM auth.otp_failures WHERE failed_at < $1`,
  pruneCodes: `DELETE FROM auth.otp_codes WHERE expires_at < $1`,
};

/** The OTP tables' SQL (otp.sql). Times come in as parameters, from the service's clock. */
export const otpSql = {
  replaceCode: `
    INSERT INTO auth.otp_codes (subject, purpose, code_hash, send_id, expires_at, used_at)
    VALUES ($1, $2, $3, $4, $5, NULL)
    ON CONFLICT (subject, purpose) DO UPDATE
    SET code_hash = EXCLUDED.code_hash, send_id = EXCLUDED.send_id, expires_at = EXCLUDED.expires_at, used_at = NULL`,
  /** Undoes a send whose mail never left: its code never works. */
  forgetCode: `DELETE FROM auth.otp_codes WHERE send_id = $1`,
  lockCode: `SELECT code_hash, send_id::text AS send_id, expires_at, used_at FROM auth.otp_codes
             WHERE subject = $1 AND purpose = $2 FOR UPDATE`,
  /** The right code, under its row's lock, so it works once. */
  useCode: `UPDATE auth.otp_codes SET used_at = $3 WHERE subject = $1 AND purpose = $2`,
  /** Housekeeping: codes that can no longer be used. */
  pruneCodes: `DELETE FROM auth.otp_codes WHERE expires_at < $1`,
};

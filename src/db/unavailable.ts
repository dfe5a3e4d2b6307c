/**
 * Errors that say the database cannot be reached now, not that a statement is wrong: the server
 * refuses or drops connections (a restart, a failover, a crash), is shutting down or starting up,
 * or has no connection to spare. They answer 503 and the next request may well succeed.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// node-postgres reports a lost or unobtainable connection with these messages and no code.
const MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /is not queryable/];

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SQLSTATES.has(code) || code.startsWith('08') || SOCKET_CODES.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
  }
  return false;
}

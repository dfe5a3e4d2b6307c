const ADDRESS = /[^\s<>"'()[\]@,;:]+@[^\s<>"'()[\]@,;:]+/g;

const mask = (s: string): string => s.replace(ADDRESS, '[address]');

/** A copy of a low-level error fit for logs: same name, code and stack, no mail addresses. */
export function maskedError(e: unknown): Error {
  const source = e instanceof Error ? e : new Error(String(e));
  const copy = new Error(mask(source.message));
  copy.name = source.name;
  if (source.stack) copy.stack = mask(source.stack);
  // Diagnostic fields nodemailer and node:fs attach; recipient lists and replies are left behind.
  const fields = source as Error & { code?: unknown; responseCode?: unknown; command?: unknown; syscall?: unknown };
  const kept = copy as Error & Record<string, unknown>;
  for (const key of ['code', 'responseCode', 'command', 'syscall'] as const) {
    const value = fields[key];
    if (typeof value === 'string' || typeof value === 'number') kept[key] = typeof value === 'string' ? mask(value) : value;
  }
  return copy;
}

/** A short label for why mail failed: the error code and, for SMTP, the server's reply code. */
export function failureReason(e: unknown): string {
  const fields = (e ?? {}) as { code?: unknown; responseCode?: unknown };
  const parts = [fields.code, fields.responseCode].filter((v) => typeof v === 'string' || typeof v === 'number');
  return parts.length ? parts.join(' ') : 'unknown';
}

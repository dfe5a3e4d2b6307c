/**
 * ISO 8601 durations as R-HTTP-13 accepts them: designators in upper case, whole numbers,
 * weeks allowed, and at least one second in total (PT1S is the smallest). A zero duration or a
 * fraction of a second cannot be a retention. R-LIM-01: at most 100 years, so a duration in
 * milliseconds always fits the read models' bigint and every date it reaches is a real one.
 */
const DURATION = /^P(?:(\d{1,9})Y)?(?:(\d{1,9})M)?(?:(\d{1,9})W)?(?:(\d{1,9})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,9})S)?)?$/;

/** Why `value` is not a retention, or null when it is one. */
export function retentionProblem(value: string): string | null {
  const match = DURATION.exec(value);
  if (!match || value === 'P' || value.endsWith('T')) return 'must be an ISO 8601 duration such as P365D or PT2S';
  if (match.slice(1).every((part) => part === undefined || Number(part) === 0)) return 'must be at least PT1S';
  if (totalMs(match) > MAX_DURATION_MS) return 'must be at most 100 years (P100Y, counting 365-day years and 30-day months)';
  return null;
}

const SECOND = 1000;
const DAY = 86_400 * SECOND;
// Calendar units have no fixed length; a fixed year (365 days) and month (30 days) keep the
// window the same on every read and every instance, which matters more than calendar exactness.
const UNITS = [365 * DAY, 30 * DAY, 7 * DAY, DAY, 3600 * SECOND, 60 * SECOND, SECOND];
const MAX_DURATION_MS = 100 * UNITS[0]!;

/**
 * A retention already accepted by retentionProblem, in milliseconds. One published before the
 * bound existed reads as the longest allowed, so the log's old manifests stay acceptable.
 */
export function retentionMs(duration: string): number {
  const match = DURATION.exec(duration);
  if (!match) throw new Error(`not an ISO 8601 duration: ${duration}`);
  return Math.min(totalMs(match), MAX_DURATION_MS);
}

function totalMs(match: RegExpExecArray): number {
  return UNITS.reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * unit, 0);
}

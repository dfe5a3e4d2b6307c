/**
 * ISO 8601 durations as contract §0 accepts them: designators in upper case, whole numbers,
 * weeks allowed, and at least one second in total (PT1S is the smallest). A zero duration or a
 * fraction of a second cannot be a retention.
 */
const DURATION = /^P(?:(\d{1,9})Y)?(?:(\d{1,9})M)?(?:(\d{1,9})W)?(?:(\d{1,9})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,9})S)?)?$/;

/** Why `value` is not a retention, or null when it is one. */
export function retentionProblem(value: string): string | null {
  const match = DURATION.exec(value);
  if (!match || value === 'P' || value.endsWith('T')) return 'must be an ISO 8601 duration such as P365D or PT2S';
  if (match.slice(1).every((part) => part === undefined || Number(part) === 0)) return 'must be at least PT1S';
  return null;
}

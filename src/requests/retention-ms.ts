const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const SECOND = 1000;
const DAY = 86_400 * SECOND;
// Calendar units have no fixed length; a fixed year and month keep the window the same on every
// read and every instance, which matters more here than calendar exactness.
const UNITS = [365 * DAY, 30 * DAY, 7 * DAY, DAY, 3600 * SECOND, 60 * SECOND, SECOND];

/** The retention of a published manifest version (already checked by retentionProblem) in ms. */
export function retentionMs(duration: string): number {
  const match = DURATION.exec(duration);
  if (!match) throw new Error(`not an ISO 8601 duration: ${duration}`);
  return UNITS.reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * unit, 0);
}

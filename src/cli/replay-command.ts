import { formatPosition, positionFrom } from '../events/position.js';
import type { LogCut } from '../projections/log-cut.js';
import { describeCut } from '../projections/log-cut.js';
import type { TimeTravelReport } from '../projections/time-travel.js';
import { targetSchemaProblem } from '../projections/time-travel.js';
import { parsePosition } from './projections-command.js';
import { asksForHelp, UsageError } from './usage.js';

export type ReplayCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'replay' }
  | { readonly kind: 'time-travel'; readonly until: LogCut; readonly schema: string };

export const REPLAY_USAGE = [
  'usage: npm run replay',
  '         rebuilds every read model from the log and swaps it in',
  '       npm run replay -- --until <position|time> --schema <name>',
  '         builds them as they stood at a point of the log into schema <name>; the live ones stay',
  '  <position>  as /readyz and the history print it, <commit>/<prepare> (e.g. 7543/1201): events up to it',
  '  <time>      ISO 8601 with an offset (e.g. 2026-11-23T09:15:00Z): events in log order, up to the',
  '              first that occurred later',
  '  <name>      a-z, 0-9 and _; dropped and rebuilt if an earlier time travel made it; never the live schema',
].join('\n');

const MAX_VALUE = 64;
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** The command line after `npm run replay --`; `--flag value` or `--flag=value`. */
export function parseReplayArgs(argv: readonly string[]): ReplayCommand {
  if (asksForHelp(argv)) return { kind: 'help' };
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (name !== '--until' && name !== '--schema')
      throw new UsageError(`unknown argument ${JSON.stringify(arg.slice(0, MAX_VALUE))}\n${REPLAY_USAGE}`);
    if (flags.has(name)) throw new UsageError(`${name} given twice`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || value.startsWith('--')) throw new UsageError(`${name} needs a value\n${REPLAY_USAGE}`);
    if (value.length > MAX_VALUE) throw new UsageError(`${name} takes at most ${MAX_VALUE} characters`);
    flags.set(name, value);
  }
  const until = flags.get('--until');
  const schema = flags.get('--schema');
  if (until === undefined && schema === undefined) return { kind: 'replay' };
  if (until === undefined) throw new UsageError('--schema goes with --until: a full replay always swaps into the live schema');
  if (schema === undefined) throw new UsageError('--until needs --schema <name>: a time travel never replaces the live read models');
  const problem = targetSchemaProblem(schema);
  if (problem) throw new UsageError(problem);
  return { kind: 'time-travel', until: parseCut(until), schema };
}

/** A position as the service prints it, or an ISO 8601 instant with its offset (no local times: they would be ambiguous). */
export function parseCut(text: string): LogCut {
  if (positionFrom(text)) return { kind: 'position', position: parsePosition(text) };
  const m = ISO_TIME.exec(text);
  const at = new Date(text);
  if (!m || Number.isNaN(at.getTime()) || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw new UsageError(`--until takes a position such as 7543/1201 or an ISO 8601 time such as 2026-11-23T09:15:00Z, not ${text}`);
  }
  return { kind: 'time', at };
}

/** Date parsing rolls 2026-02-30 over into March; an operator who typed it meant something else. */
function isCalendarDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

export function describeTimeTravel(report: TimeTravelReport, until: LogCut, schema: string, readModels: number): string {
  const last = report.lastApplied ? formatPosition(report.lastApplied) : 'none';
  return (
    `built ${readModels} read models as of ${describeCut(until)} into schema ${schema}: ` +
    `${report.events.toLocaleString('en-US')} events, the last at position ${last}, in ${(report.elapsedMs / 1000).toFixed(1)} s; ` +
    'the live read models are untouched'
  );
}

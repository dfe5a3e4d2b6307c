import { userInfo } from 'node:os';
import type { SqlDb } from '../db/sql.js';
import { comparePositions, formatPosition, positionFrom, START, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import { projectionLag } from '../observability/projection-lag.js';
import { readCheckpoints, type Stall } from '../projections/checkpoints.js';
import type { Projector } from '../projections/projector.js';
import { skipStalledEvent, type SkipOutcome } from '../projections/skip.js';
import { asksForHelp, UsageError } from './usage.js';

export type ProjectionsDeps = {
  readonly db: SqlDb;
  readonly store: EventStore;
  readonly projectors: readonly Projector[];
  readonly schema?: string;
};

export type ProjectionsCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'status' }
  | { readonly kind: 'skip'; readonly projector: string; readonly position: Position; readonly reason: string; readonly by: string };

export const USAGE =
  'usage: npm run projections -- status\n       npm run projections -- skip <projector> <position> --reason "..." [--by name]';

/** The command line after `npm run projections --`; who skips defaults to the OS user. */
export function parseProjectionsArgs(argv: readonly string[], osUser: () => string = () => userInfo().username): ProjectionsCommand {
  if (asksForHelp(argv)) return { kind: 'help' };
  const [verb, ...rest] = argv;
  if (verb === 'status' && rest.length === 0) return { kind: 'status' };
  if (verb !== 'skip') throw new UsageError(USAGE);
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--reason' || arg === '--by') {
      const value = rest[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value\n${USAGE}`);
      flags[arg.slice(2)] = value;
    } else positional.push(arg);
  }
  const [projector, position] = positional;
  if (positional.length !== 2 || !projector || !position) throw new UsageError(USAGE);
  if (flags.reason === undefined) throw new UsageError(`--reason is required\n${USAGE}`);
  return { kind: 'skip', projector, position: parsePosition(position), reason: flags.reason, by: flags.by ?? osUser() };
}

/** Positions as /readyz and the metric print them: `<commit>/<prepare>`. */
export function parsePosition(text: string): Position {
  const position = positionFrom(text);
  if (!position) throw new UsageError(`a position looks like 123/456 (as /readyz shows it), not ${text}`);
  return position;
}

export type ProjectorReport = {
  readonly projector: string;
  /** Written with each append (inline): its position is the log's head. */
  readonly inline: boolean;
  readonly position: Position;
  readonly lagSeconds: number;
  readonly stalled: Stall | null;
};

/** Every projector the service runs: where it stands, how far behind, and where it is stalled. */
export async function projectionsStatus(deps: ProjectionsDeps): Promise<ProjectorReport[]> {
  const names = new Set(deps.projectors.map((p) => p.name));
  const rows = (await readCheckpoints(deps.db, deps.schema ?? 'rm')).filter((r) => names.has(r.projector));
  const source = {
    status: async () =>
      rows.map((r) => ({
        projector: r.projector,
        position: r.position,
        eventsSeen: r.eventsSeen,
        running: r.inline,
        stalled: r.stalled,
        inline: r.inline,
      })),
  };
  const lags = new Map((await projectionLag(source, deps.store)).map((l) => [l.projector, l.lagSeconds]));
  // An inline checkpoint keeps where inline projection began; the rows hold every event to the head.
  const head = rows.some((r) => r.inline) ? ((await deps.store.headPosition()) ?? START) : START;
  return rows.map((r) => ({
    projector: r.projector,
    inline: r.inline,
    position: r.inline ? head : r.position,
    lagSeconds: lags.get(r.projector) ?? 0,
    stalled: r.stalled,
  }));
}

export function formatStatus(reports: readonly ProjectorReport[]): string {
  return reports
    .map((r) => {
      const state = r.stalled
        ? `STALLED at ${formatPosition(r.stalled.position)} (${r.stalled.errorClass}) since ${r.stalled.since.toISOString()}`
        : 'ok';
      const lag = `lag ${r.lagSeconds.toFixed(1).padStart(8)} s`;
      const at = comparePositions(r.position, START) === 0 ? '(the log is empty)' : formatPosition(r.position);
      const where = r.inline ? `inline, at the log head ${at}` : `position ${formatPosition(r.position)}`;
      return `${r.projector.padEnd(16)} ${where.padEnd(33)} ${lag}  ${state}`;
    })
    .join('\n');
}

/** Runs one parsed command and answers what to print. */
export async function runProjectionsCommand(
  deps: ProjectionsDeps,
  command: Exclude<ProjectionsCommand, { kind: 'help' }>,
): Promise<string> {
  if (command.kind === 'status') return formatStatus(await projectionsStatus(deps));
  const outcome: SkipOutcome = await skipStalledEvent({ ...deps, ...command });
  return (
    `skipped ${outcome.skippedEventType} ${outcome.skippedEventId} at ${formatPosition(command.position)} for ${command.projector}; ` +
    `recorded at ${formatPosition(outcome.recordedAt)}; the projector resumes`
  );
}

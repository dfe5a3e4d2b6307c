import type { SqlDb } from '../db/sql.js';
import { LogVerifier, type LogBreak } from '../events/log-verification.js';
import { logStreams } from '../events/log-events.js';
import { formatPosition, START, type Position } from '../events/position.js';
import type { EventStore } from '../events/store.js';
import { countEvents, type ReplayProgress } from '../projections/replay.js';

const PAGE = 1000;

export type LogVerification = { readonly events: number; readonly checkpoints: number; readonly firstBreak: LogBreak | null };

/** Walks the whole log once in global order and stops at the first break (npm run verify-log). */
export async function verifyLog(
  deps: { readonly db: SqlDb; readonly store: EventStore },
  onProgress?: (p: ReplayProgress) => void,
): Promise<LogVerification> {
  const started = Date.now();
  const total = await countEvents(deps.db, deps.store);
  const verifier = new LogVerifier(await deps.store.readStream(logStreams.checkpoints.id));
  let after: Position = START;
  for (;;) {
    const page = await deps.store.readAll({ after, maxCount: PAGE });
    if (page.length === 0) break;
    for (const e of page) if (verifier.feed(e)) break;
    onProgress?.({ events: verifier.events, total, elapsedMs: Date.now() - started });
    if (verifier.firstBreak) break;
    after = page[page.length - 1]!.position;
  }
  return { events: verifier.events, checkpoints: verifier.checkpoints, firstBreak: verifier.firstBreak };
}

/** What verify-log prints: one line, the verdict first. */
export function describeVerification(v: LogVerification): string {
  if (!v.firstBreak) return `log intact: ${v.events.toLocaleString('en-US')} events, ${v.checkpoints.toLocaleString('en-US')} checkpoints`;
  const b = v.firstBreak;
  return (
    `log broken at ${formatPosition(b.position)}, stream ${b.streamId} revision ${b.revision}: ${b.reason} (${b.detail}); ` +
    `${v.events.toLocaleString('en-US')} events and ${v.checkpoints.toLocaleString('en-US')} checkpoints before it are intact`
  );
}

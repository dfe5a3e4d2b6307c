import { readFileSync } from 'node:fs';
import { streamCategory, type RecordedEvent, type UnpositionedEvent } from '../../events/envelope.js';
import { logProjector, writes } from '../projector.js';

const upsert = `
  INSERT INTO stream_heads (stream_id, category, revision, event_count, first_type, last_type, created_at, last_occurred_at)
  VALUES ($1, $2, $3, 1, $4, $4, $5, $5)
  ON CONFLICT (stream_id) DO UPDATE
  SET revision = EXCLUDED.revision, event_count = stream_heads.event_count + 1,
      last_type = EXCLUDED.last_type, last_occurred_at = EXCLUDED.last_occurred_at`;

/** The same rows as one upsert per event: per stream, its events' count, first and last. */
const upsertMany = `
  INSERT INTO stream_heads (stream_id, category, revision, event_count, first_type, last_type, created_at, last_occurred_at)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[])
  ON CONFLICT (stream_id) DO UPDATE
  SET revision = EXCLUDED.revision, event_count = stream_heads.event_count + EXCLUDED.event_count,
      last_type = EXCLUDED.last_type, last_occurred_at = EXCLUDED.last_occurred_at`;

type Head = { revision: number; count: number; firstType: string; lastType: string; createdAt: string; lastAt: string };

function headsOf(events: readonly RecordedEvent[]): Map<string, Head> {
  const heads = new Map<string, Head>();
  for (const e of events) {
    const head = heads.get(e.streamId);
    const at = e.metadata.occurredAt;
    if (head) Object.assign(head, { revision: e.revision, count: head.count + 1, lastType: e.type, lastAt: at });
    else heads.set(e.streamId, { revision: e.revision, count: 1, firstType: e.type, lastType: e.type, createdAt: at, lastAt: at });
  }
  return heads;
}

export const streamHeadsProjector = logProjector({
  name: 'stream_heads',
  version: 1,
  schemaSql: readFileSync(new URL('./stream-heads.sql', import.meta.url), 'utf8'),
  onAny: writes((e: UnpositionedEvent) => [[upsert, [e.streamId, streamCategory(e.streamId), e.revision, e.type, e.metadata.occurredAt]]]),
  batchStatements: (events) => {
    const heads = [...headsOf(events)];
    return [
      [
        upsertMany,
        [
          heads.map(([id]) => id),
          heads.map(([id]) => streamCategory(id)),
          heads.map(([, h]) => h.revision),
          heads.map(([, h]) => h.count),
          heads.map(([, h]) => h.firstType),
          heads.map(([, h]) => h.lastType),
          heads.map(([, h]) => h.createdAt),
          heads.map(([, h]) => h.lastAt),
        ],
      ],
    ];
  },
});

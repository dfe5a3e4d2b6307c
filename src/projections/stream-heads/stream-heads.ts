import { readFileSync } from 'node:fs';
import { streamCategory } from '../../events/envelope.js';
import { logProjector } from '../projector.js';

const upsert = `
  INSERT INTO stream_heads (stream_id, category, revision, event_count, first_type, last_type, created_at, last_occurred_at)
  VALUES ($1, $2, $3, 1, $4, $4, $5, $5)
  ON CONFLICT (stream_id) DO UPDATE
  SET revision = EXCLUDED.revision, event_count = stream_heads.event_count + 1,
      last_type = EXCLUDED.last_type, last_occurred_at = EXCLUDED.last_occurred_at`;

export const streamHeadsProjector = logProjector({
  name: 'stream_heads',
  version: 1,
  schemaSql: readFileSync(new URL('./stream-heads.sql', import.meta.url), 'utf8'),
  onAny: (tx, e) => tx.query(upsert, [e.streamId, streamCategory(e.streamId), e.revision, e.type, e.metadata.occurredAt]),
});

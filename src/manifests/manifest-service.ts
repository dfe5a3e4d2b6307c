import { randomUUID } from 'node:crypto';
import { isUuid } from '../ids.js';
import { manifestDecider } from '../commands/manifests/manifest-decider.js';
import type { ManifestState, SlotDraft } from '../commands/manifests/manifest-state.js';
import { isRefusal, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps, type Handled } from '../commands/shell.js';
import type { SqlExecutor } from '../db/sql.js';
import type { EventContext } from '../events/envelope.js';
import { manifestStreams as streams, type ManifestEvent, type Slot } from '../events/manifest-events.js';
import { manifestSql as q, type ManifestRow } from './manifest-queries.js';
import { manifestView, type ManifestView } from './manifest-view.js';

export type ManifestInput = { readonly purpose: string; readonly retention: string; readonly slots: readonly SlotDraft[] };

export type ManifestDeps = CommandDeps & { readonly readModels: SqlExecutor; readonly now: () => Date };

/** Manifests and their versions (R-MAN-01 to R-MAN-06), each organization seeing only its own. */
export class ManifestService {
  constructor(private readonly deps: ManifestDeps) {}

  async create(
    organizationId: string,
    input: ManifestInput & { readonly name: string },
    context: EventContext,
  ): Promise<ManifestView | Refusal> {
    const manifestId = randomUUID();
    const done = await handle(
      this.deps,
      streams.manifest(manifestId),
      manifestDecider,
      {
        type: 'CreateManifest',
        data: { manifestId, organizationId, ...input, freshSlotIds: input.slots.map(() => randomUUID()), now: this.deps.now() },
      },
      { context, newStream: true },
    );
    return this.published(done);
  }

  async publishVersion(
    organizationId: string,
    manifestId: string,
    input: ManifestInput,
    context: EventContext,
  ): Promise<ManifestView | Refusal> {
    const done = await handle(
      this.deps,
      streams.manifest(manifestId),
      manifestDecider,
      {
        type: 'PublishManifestVersion',
        data: { manifestId, organizationId, ...input, freshSlotIds: input.slots.map(() => randomUUID()), now: this.deps.now() },
      },
      { context },
    );
    return this.published(done);
  }

  /** Whether the organization has this manifest: a foreign or malformed id is simply unknown. */
  async exists(organizationId: string, manifestId: string): Promise<boolean> {
    if (!isUuid(manifestId)) return false;
    return (await this.deps.readModels.query(q.exists, [organizationId, manifestId])).rowCount > 0;
  }

  /** The newest version of each of the organization's manifests, newest manifest first. */
  async list(organizationId: string): Promise<ManifestView[]> {
    return (await this.deps.readModels.query<ManifestRow>(q.newestOfOrganization, [organizationId])).rows.map(fromRow);
  }

  /** A version as published (the newest when none is named); null when the organization has no such one. */
  async get(organizationId: string, manifestId: string, version: number | null): Promise<ManifestView | null> {
    if (!isUuid(manifestId)) return null;
    const rows =
      version === null
        ? await this.deps.readModels.query<ManifestRow>(q.newest, [organizationId, manifestId])
        : await this.deps.readModels.query<ManifestRow>(q.version, [organizationId, manifestId, version]);
    const row = rows.rows[0];
    return row ? fromRow(row) : null;
  }

  private published(done: Handled<ManifestEvent, ManifestState> | Refusal): ManifestView | Refusal {
    if (isRefusal(done)) return done;
    const event = done.events[0];
    if (!event) throw new Error('publishing a manifest wrote no event');
    return manifestView(event.data);
  }
}

function fromRow(row: ManifestRow): ManifestView {
  return manifestView({
    manifestId: row.manifest_id,
    name: row.name,
    purpose: row.purpose,
    version: row.version,
    retention: row.retention,
    // Written by this module's projector from ManifestPublished: the shape is ours.
    slots: row.slots as Slot[],
    publishedAt: row.published_at,
  });
}

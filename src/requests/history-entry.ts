import type { JsonObject, JsonValue, RecordedEvent } from '../events/envelope.js';
import { formatPosition } from '../events/position.js';

/** One event of a request or of its copy chains, as the audit history shows it (R-HIST-01). */
export type HistoryEntry = {
  readonly position: string;
  readonly type: string;
  readonly occurredAt: string;
  /** "member:<email>" (the organization's view), "member:<pseudonym>" (the person's, R-HIST-03), "recipient" or "system". */
  readonly actor: string;
  /** The versions the event involves, and the ids that say whose versions they are. */
  readonly versions: JsonObject;
};

/**
 * What of an event's data the history shows: versions, and the opaque ids naming the slot, record,
 * copy, adoption or proposal they belong to. Anything else (an address, sealed data, a file name)
 * stays out, so no entry carries personal data in clear (R-HIST-02).
 */
const shown: Readonly<Record<string, string>> = {
  manifestVersion: 'manifestVersion',
  sourceVersion: 'sourceVersion',
  orgVersion: 'orgVersion',
  newVersion: 'newVersion',
  // A receipt's `version` is the version of the person's record the organization read.
  version: 'sourceVersion',
  slotId: 'slotId',
  sourceResourceId: 'resourceId',
  resourceId: 'resourceId',
  orgResourceId: 'orgResourceId',
  adoptionId: 'adoptionId',
  followsAdoptionId: 'adoptionId',
  proposalId: 'proposalId',
  reason: 'reason',
};

/** memberNames: identity id → how the reader sees each member who acted (login email or pseudonym), where known. */
export function historyEntryOf(event: RecordedEvent, memberNames: ReadonlyMap<string, string>): HistoryEntry {
  const versions: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(event.data)) {
    const name = shown[key];
    if (name !== undefined && (typeof value === 'number' || typeof value === 'string')) versions[name] = value;
  }
  return {
    position: formatPosition(event.position),
    type: event.type,
    occurredAt: new Date(event.metadata.occurredAt).toISOString(),
    actor: actorOf(event.metadata.actor, memberNames),
    versions,
  };
}

function actorOf(actor: RecordedEvent['metadata']['actor'], memberNames: ReadonlyMap<string, string>): string {
  switch (actor.kind) {
    case 'member':
      // A member whose account was erased is named by the identity id the event recorded.
      return `member:${memberNames.get(actor.id) ?? actor.id}`;
    case 'user':
      return 'recipient';
    case 'system':
      return 'system';
  }
}

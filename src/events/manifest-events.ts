import type { DomainEvent } from './domain-event.js';
import { eventDecoder, streamOf, type StreamRef } from './decoder.js';
import { publishedWithPurpose } from './upcasters/manifest-published-v1.js';

/** Stream: `manifest-<manifestId>`; its revision + 1 is the manifest's version. */
export const manifestStreams = {
  manifest: (manifestId: string): StreamRef<ManifestEvent> => streamOf(manifestEvents, `manifest-${manifestId}`),
};

export const SLOT_KINDS = ['schema', 'file'] as const;
export const SLOT_VERBS = ['fill', 'edit', 'keep'] as const;
export const ADOPTIONS = ['manual', 'auto'] as const;
export type SlotKind = (typeof SLOT_KINDS)[number];
export type SlotVerb = (typeof SLOT_VERBS)[number];
export type Adoption = (typeof ADOPTIONS)[number];

/** One slot of one manifest version (R-MAN-04, R-MAN-05); `subject` is null unless the slot asks about a party. */
export type Slot = {
  slotId: string;
  label: string;
  group: string;
  subject: string | null;
  multiple: boolean;
  kind: SlotKind;
  /** A built-in schema name for kind schema; a free label for kind file. */
  target: string;
  verbs: SlotVerb[];
  adoption: Adoption;
  /** §11: accepting the request needs a grant for this slot. */
  required: boolean;
};

/**
 * One version of a manifest, complete: a request pins a version, so every version keeps all its
 * slots rather than a difference to the one before.
 */
export type ManifestPublished = DomainEvent<
  'ManifestPublished',
  {
    manifestId: string;
    organizationId: string;
    name: string;
    version: number;
    /** §11: why the organization asks, 1 to 2000 characters; "" on a version published before purposes. */
    purpose: string;
    /** ISO 8601 duration, at least PT1S. */
    retention: string;
    slots: Slot[];
    publishedAt: string;
  }
>;

export type ManifestEvent = ManifestPublished;

export const manifestEvents = eventDecoder<ManifestEvent>('manifest', {
  ManifestPublished: { version: 2, upcasters: { 1: publishedWithPurpose } },
});

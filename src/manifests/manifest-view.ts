import type { Slot } from '../events/manifest-events.js';
import { iso } from '../organizations/member.js';

/** The Slot of R-MAN-05: SlotInput with its slotId; `subject` only where the slot has one. */
export type SlotView = Omit<Slot, 'subject'> & { readonly subject?: string };

export type ManifestView = {
  readonly manifestId: string;
  readonly name: string;
  readonly purpose: string;
  readonly version: number;
  readonly retention: string;
  readonly slots: readonly SlotView[];
  readonly publishedAt: string;
};

export function manifestView(m: {
  manifestId: string;
  name: string;
  purpose: string;
  version: number;
  retention: string;
  slots: readonly Slot[];
  publishedAt: Date | string;
}): ManifestView {
  return {
    manifestId: m.manifestId,
    name: m.name,
    purpose: m.purpose,
    version: m.version,
    retention: m.retention,
    slots: m.slots.map(slotView),
    publishedAt: iso(m.publishedAt),
  };
}

function slotView({ subject, ...slot }: Slot): SlotView {
  return subject === null ? slot : { ...slot, subject };
}

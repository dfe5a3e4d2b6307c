import { isUuid } from '../../ids.js';
import type { SlotDraft } from '../../commands/manifests/manifest-state.js';
import { isRefusal, refuse, type Refusal } from '../../commands/refusal.js';
import { ADOPTIONS, SLOT_KINDS, SLOT_VERBS } from '../../events/manifest-events.js';
import { retentionProblem } from '../../organizations/index.js';
import { booleanAt, objectAt, oneOfAt, subsetAt, textAt, type Fields } from '../fields.js';

const MAX_TEXT = 200;
const MAX_SLOTS = 200;
/** §11: a purpose is 1 to 2000 characters. */
const MAX_PURPOSE = 2000;

export type ManifestBody = { readonly purpose: string; readonly retention: string; readonly slots: SlotDraft[] };

/** POST /org/v1/manifests: {name, purpose, retention, slots}. */
export function manifestBody(body: unknown): (ManifestBody & { name: string }) | Refusal {
  const fields = objectAt(body, 'body');
  if (isRefusal(fields)) return fields;
  // The name reaches the invitation mail.
  const name = textAt(fields.name, 'name', MAX_TEXT, 'shown');
  if (isRefusal(name)) return name;
  const rest = versionBody(fields);
  return isRefusal(rest) ? rest : { name, ...rest };
}

/** POST /org/v1/manifests/{id}/versions: {purpose, retention, slots}; the name stays the manifest's. */
export function versionBody(body: unknown): ManifestBody | Refusal {
  const fields = objectAt(body, 'body');
  if (isRefusal(fields)) return fields;
  // §11: every version states its purpose; free text, as the person reads it on the request's page.
  const purpose = textAt(fields.purpose, 'purpose', MAX_PURPOSE, 'free');
  if (isRefusal(purpose)) return purpose;
  const retention = fields.retention;
  if (typeof retention !== 'string')
    return refuse(
      'invalid_request',
      retention === undefined || retention === null ? 'retention is required' : 'retention must be a string',
    );
  const problem = retentionProblem(retention);
  if (problem) return refuse('invalid_request', `retention ${problem}`);
  const slots = slotsAt(fields.slots);
  return isRefusal(slots) ? slots : { purpose, retention, slots };
}

function slotsAt(value: unknown): SlotDraft[] | Refusal {
  if (value === undefined || value === null) return refuse('invalid_request', 'slots is required');
  if (!Array.isArray(value)) return refuse('invalid_request', 'slots must be an array');
  if (value.length === 0) return refuse('invalid_request', 'slots must hold at least one slot');
  if (value.length > MAX_SLOTS) return refuse('invalid_request', `slots has more than ${MAX_SLOTS} entries`);
  const drafts: SlotDraft[] = [];
  for (const [i, item] of value.entries()) {
    const draft = slotAt(item, `slots[${i}]`);
    if (isRefusal(draft)) return draft;
    drafts.push(draft);
  }
  return drafts;
}

/** A SlotInput's shape; the rules between its fields (target, auto needs keep, carry-over) are the decision's. */
function slotAt(value: unknown, path: string): SlotDraft | Refusal {
  const f = objectAt(value, path);
  if (isRefusal(f)) return f;
  const slotId = optionalSlotId(f, path);
  if (isRefusal(slotId)) return slotId;
  const label = textAt(f.label, `${path}.label`, MAX_TEXT);
  if (isRefusal(label)) return label;
  const group = textAt(f.group, `${path}.group`, MAX_TEXT);
  if (isRefusal(group)) return group;
  const subject = f.subject === undefined || f.subject === null ? null : textAt(f.subject, `${path}.subject`, MAX_TEXT);
  if (isRefusal(subject)) return subject;
  const multiple = booleanAt(f.multiple, `${path}.multiple`);
  if (isRefusal(multiple)) return multiple;
  const kind = oneOfAt(f.kind, `${path}.kind`, SLOT_KINDS);
  if (isRefusal(kind)) return kind;
  const target = textAt(f.target, `${path}.target`, MAX_TEXT);
  if (isRefusal(target)) return target;
  const verbs = subsetAt(f.verbs, `${path}.verbs`, SLOT_VERBS);
  if (isRefusal(verbs)) return verbs;
  const adoption = oneOfAt(f.adoption, `${path}.adoption`, ADOPTIONS);
  if (isRefusal(adoption)) return adoption;
  // §11: a slot is optional unless it says otherwise.
  const required = f.required === undefined ? false : booleanAt(f.required, `${path}.required`);
  if (isRefusal(required)) return required;
  return { slotId, label, group, subject, multiple, kind, target, verbs, adoption, required };
}

function optionalSlotId(f: Fields, path: string): string | null | Refusal {
  if (f.slotId === undefined || f.slotId === null) return null;
  if (typeof f.slotId !== 'string' || !isUuid(f.slotId))
    return refuse('invalid_request', `${path}.slotId must be the id of a slot of the previous version`);
  return f.slotId.toLowerCase();
}

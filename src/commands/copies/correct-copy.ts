import { consentLapse, type ConsentFacts } from '../requests/consent-gate.js';
import { refuse } from '../refusal.js';
import { newestOf } from '../version-set.js';
import { chainDecision } from './chain-state.js';

export type CorrectCopy = {
  /** The organization's key is warm now (R-COPY-06). */
  readonly keyWarm: boolean;
  /** The slot's verbs name keep (R-KEEP-06). */
  readonly slotKeeps: boolean;
  /** The record is named: by sourceResourceId, or as the slot's only record (R-CORR-03). */
  readonly recordNamed: boolean;
  readonly expectedSourceVersion: number;
  readonly expectedOrgVersion: number;
  /** The newest version the person has published of the record now; compared only while consent stands. */
  readonly newestSourceVersion: number;
  /** The consent gate's facts for the record, read now (R-CONS-04). */
  readonly consent: ConsentFacts;
  /** The schema's verdict on the corrected data: null when it matches (or the copy has no built-in schema). */
  readonly invalid: string | null;
  readonly now: Date;
  /** The corrected document, sealed with the chain's key for orgVersion expectedOrgVersion + 1; null: its key is erased (deleting). */
  readonly sealedData: string | null;
};

/**
 * R-CORR-01 to R-CORR-05, R-CONS-04: the organization's own revision becomes the chain's next
 * version, origin correction. Only a kept document can be corrected; a stale head or source is a
 * version_conflict, and nothing is written. While consent stands the source is the person's
 * newest version; once it lapsed, the newest the organization holds, so no answer names a
 * version the organization may not read.
 */
export const correctCopy = chainDecision<CorrectCopy>((state, cmd) => {
  if (!cmd.keyWarm) return refuse('org_sealed', 'the organization key is cold: a member must sign in first');
  if (!cmd.slotKeeps) return refuse('adoption_refused', 'this slot does not allow keeping copies');
  if (!cmd.recordNamed) return refuse('invalid_request', 'sourceResourceId is required: the slot holds more than one record');
  if (state.deleted) return refuse('not_found', 'the organization deleted its copy of this record');
  const kept = state.lastKeep;
  if (!kept) return refuse('adoption_refused', 'this record has no kept copy to correct');
  if (cmd.invalid !== null) return refuse('invalid_request', `data does not match the copy's schema: ${cmd.invalid}`);
  if (kept.resourceType === 'file') return refuse('adoption_refused', 'a kept file cannot be corrected');
  if (cmd.expectedOrgVersion !== state.head) {
    return refuse('version_conflict', `the copy is at orgVersion ${state.head}; re-read the copies and apply the correction again`);
  }
  if (consentLapse(cmd.consent) !== null) {
    const held = newestOf(state.keeps);
    if (cmd.expectedSourceVersion !== held)
      return refuse('version_conflict', `the organization holds version ${held} of this record; correct that version`);
  } else if (cmd.expectedSourceVersion !== cmd.newestSourceVersion) {
    return refuse('version_conflict', `the person has published version ${cmd.newestSourceVersion}; keep it first, then correct`);
  }
  if (cmd.sealedData === null) return refuse('conflict', 'the copy is being deleted');
  const orgVersion = state.head + 1;
  return [
    {
      type: 'CopyCorrected',
      data: {
        requestId: kept.requestId,
        organizationId: kept.organizationId,
        slotId: kept.slotId,
        sourceResourceId: kept.sourceResourceId,
        orgResourceId: kept.orgResourceId,
        orgVersion,
        followsAdoptionId: kept.adoptionId,
        correctedAt: cmd.now.toISOString(),
        sealedData: cmd.sealedData,
      },
    },
  ];
});

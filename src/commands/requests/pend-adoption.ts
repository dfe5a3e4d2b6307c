import type { AdoptionPended } from '../../events/request-events.js';
import { copyDeleted } from '../copies/keep-copy.js';
import { hasVersion } from '../version-set.js';
import { requestDecision } from './request-rules.js';
import { pendedVersions } from './request-state.js';

export type PendAdoption = {
  readonly adoption: AdoptionPended['data'];
  /** The record's copy chain, as read just before: a deleted one keeps nothing more (R-ERAS-02). */
  readonly chainDeleted: boolean;
};

/**
 * R-KEEP-08: a keep with a cold key waits on the request, once per adoption however often it is
 * asked. An adoption is one version of one record (adoptionIdOf), so the version is what is looked up.
 */
export const pendAdoption = requestDecision<PendAdoption>((state, { adoption, chainDeleted }) => {
  if (chainDeleted) return copyDeleted();
  return hasVersion(pendedVersions(state, adoption.slotId, adoption.sourceResourceId), adoption.sourceVersion)
    ? []
    : [{ type: 'AdoptionPended', data: adoption }];
});

import type { AdoptionPended } from '../../events/request-events.js';
import { hasVersion } from '../version-set.js';
import { requestDecision } from './request-rules.js';
import { pendedVersions } from './request-state.js';

export type PendAdoption = AdoptionPended['data'];

/**
 * R-KEEP-08: a keep with a cold key waits on the request, once per adoption however often it is
 * asked. An adoption is one version of one record (adoptionIdOf), so the version is what is looked up.
 */
export const pendAdoption = requestDecision<PendAdoption>((state, cmd) =>
  hasVersion(pendedVersions(state, cmd.slotId, cmd.sourceResourceId), cmd.sourceVersion) ? [] : [{ type: 'AdoptionPended', data: cmd }],
);

import type { AdoptionPended } from '../../events/request-events.js';
import { requestDecider } from './request-decider.js';

export type PendAdoption = AdoptionPended['data'];

/** R-KEEP-08: a keep with a cold key waits on the request, once per adoption however often it is asked. */
export const pendAdoption = requestDecider<PendAdoption>((state, cmd) =>
  state.pended.has(cmd.adoptionId) ? [] : [{ type: 'AdoptionPended', data: cmd }],
);

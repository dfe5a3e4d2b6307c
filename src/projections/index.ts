/** Every read model the service keeps; the engine runs them and replay rebuilds them. */
import type { Projector } from './projector.js';
import { documentsProjector } from './documents/documents.js';
import { filesProjector } from './files/files.js';
import { entitiesProjector } from './entities/entities.js';
import { identitiesProjector } from './identities/identities.js';
import { manifestsProjector } from './manifests/manifests.js';
import { copiesProjector } from './copies/copies.js';
import { proposalsProjector } from './proposals/proposals.js';
import { requestsProjector } from './requests/requests.js';
import { organizationsProjector } from './organizations/organizations.js';
import { sessionsProjector } from './sessions/sessions.js';
import { streamHeadsProjector } from './stream-heads/stream-heads.js';
import { eventsFeedProjector } from './events-feed/events-feed.js';
import { webhooksProjector } from './webhooks/webhooks.js';
import { consentReceiptsProjector } from './consent-receipts/consent-receipts.js';

export const allProjectors: readonly Projector[] = [
  streamHeadsProjector,
  identitiesProjector,
  sessionsProjector,
  documentsProjector,
  organizationsProjector,
  manifestsProjector,
  entitiesProjector,
  filesProjector,
  requestsProjector,
  copiesProjector,
  proposalsProjector,
  eventsFeedProjector,
  webhooksProjector,
  consentReceiptsProjector,
];

export { ProjectionEngine, ProjectionTimeoutError } from './engine.js';
export { replay } from './replay.js';
export { installReadModels } from './read-model-schema.js';
export type { Projector } from './projector.js';

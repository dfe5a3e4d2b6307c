import { refuse } from '../refusal.js';
import { manifestDecision, publishVersion, type VersionDraft } from './manifest-state.js';

export type PublishManifestVersion = VersionDraft;

/**
 * POST /org/v1/manifests/{id}/versions: version + 1, complete in itself; earlier versions stay as
 * they were, so a connection pinned to one is never widened (R-MAN-02, R-REQ-04). Another organization's
 * manifest answers as an unknown one (R-HTTP-11).
 */
export const publishManifestVersion = manifestDecision<PublishManifestVersion>((state, cmd) =>
  state.status !== 'published' || state.organizationId !== cmd.organizationId
    ? refuse('not_found', 'no such manifest')
    : publishVersion(cmd, state.name, state.version + 1, state.slots),
);

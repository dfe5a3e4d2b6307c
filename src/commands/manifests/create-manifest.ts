import { refuse } from '../refusal.js';
import { manifestDecision, publishVersion, type VersionDraft } from './manifest-state.js';

export type CreateManifest = VersionDraft & { readonly name: string };

/** POST /org/v1/manifests: version 1. There is no previous version, so no slotId can be carried over. */
export const createManifest = manifestDecision<CreateManifest>((state, cmd) =>
  state.status !== 'none' ? refuse('conflict', 'a manifest with this id exists') : publishVersion(cmd, cmd.name, 1, []),
);

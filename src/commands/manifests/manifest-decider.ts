import type { ManifestEvent } from '../../events/manifest-events.js';
import type { Decider } from '../decider.js';
import { createManifest, type CreateManifest } from './create-manifest.js';
import { evolveManifest, noManifest, type ManifestState } from './manifest-state.js';
import { publishManifestVersion, type PublishManifestVersion } from './publish-manifest-version.js';

/** Every command on a manifest's stream (`manifest-<id>`): its first version and every one after. */
export type ManifestCommand =
  | { readonly type: 'CreateManifest'; readonly data: CreateManifest }
  | { readonly type: 'PublishManifestVersion'; readonly data: PublishManifestVersion };

/** The manifest's one decider: every refusal of a manifest command is in the decision it switches to. */
export const manifestDecider: Decider<ManifestState, ManifestCommand, ManifestEvent> = {
  initialState: noManifest,
  evolve: evolveManifest,
  decide: (state, command) => {
    switch (command.type) {
      case 'CreateManifest':
        return createManifest(state, command.data);
      case 'PublishManifestVersion':
        return publishManifestVersion(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};

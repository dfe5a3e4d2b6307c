import { deciderOf, type CommandOf } from '../decider.js';
import { createManifest } from './create-manifest.js';
import { evolveManifest, noManifest } from './manifest-state.js';
import { publishManifestVersion } from './publish-manifest-version.js';

const manifestDecisions = { CreateManifest: createManifest, PublishManifestVersion: publishManifestVersion };

/** Every command on a manifest's stream (`manifest-<id>`): its first version and every one after. */
export type ManifestCommand = CommandOf<typeof manifestDecisions>;

/** The manifest's one decider: every refusal of a manifest command is in the decision its type names. */
export const manifestDecider = deciderOf(noManifest, evolveManifest, manifestDecisions);

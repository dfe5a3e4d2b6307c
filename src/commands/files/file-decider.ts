import { deciderOf, type CommandOf } from '../decider.js';
import { addFileVersion } from './add-file-version.js';
import { evolveFile, noFile } from './file-state.js';
import { uploadFile } from './upload-file.js';

const fileDecisions = { UploadFile: uploadFile, AddFileVersion: addFileVersion };

/** Every command on a file's stream (`resource-<id>`, a namespace it shares with documents). */
export type FileCommand = CommandOf<typeof fileDecisions>;

/** The file's one decider: every refusal of a file command is in the decision its type names. */
export const fileDecider = deciderOf(noFile, evolveFile, fileDecisions);

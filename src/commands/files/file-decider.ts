import type { ResourceEvent } from '../../events/resource-events.js';
import type { Decider } from '../decider.js';
import { addFileVersion, type AddFileVersion } from './add-file-version.js';
import { evolveFile, noFile, type FileState } from './file-state.js';
import { uploadFile, type UploadFile } from './upload-file.js';

/** Every command on a file's stream (`resource-<id>`, a namespace it shares with documents). */
export type FileCommand =
  { readonly type: 'UploadFile'; readonly data: UploadFile } | { readonly type: 'AddFileVersion'; readonly data: AddFileVersion };

/** The file's one decider: every refusal of a file command is in the decision it switches to. */
export const fileDecider: Decider<FileState, FileCommand, ResourceEvent> = {
  initialState: noFile,
  evolve: evolveFile,
  decide: (state, command) => {
    switch (command.type) {
      case 'UploadFile':
        return uploadFile(state, command.data);
      case 'AddFileVersion':
        return addFileVersion(state, command.data);
      default: {
        const unknown: never = command;
        return unknown;
      }
    }
  },
};

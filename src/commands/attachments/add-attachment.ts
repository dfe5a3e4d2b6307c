import type { AttachmentAdded, AttachmentEvent } from '../../events/attachment-events.js';
import type { Decider } from '../decider.js';
import { refuse, type Refusal } from '../refusal.js';

/** Every command on an organization's attachment (`attachment-<orgFileId>`): one so far. */
export type AttachmentCommand = { readonly type: 'AddAttachment'; readonly data: AttachmentAdded['data'] };

/** R-RFIL-02: an attachment's first version; its id is new, so a second one on the stream is a conflict. */
export const addAttachment = (exists: boolean, cmd: AttachmentAdded['data']): readonly AttachmentEvent[] | Refusal =>
  exists ? refuse('conflict', 'this attachment exists') : [{ type: 'AttachmentAdded', data: cmd }];

/** The attachment aggregate's one decider (its state: whether the attachment exists). */
export const attachmentDecider: Decider<boolean, AttachmentCommand, AttachmentEvent> = {
  initialState: false,
  evolve: () => true,
  decide: (exists, command) => {
    switch (command.type) {
      case 'AddAttachment':
        return addAttachment(exists, command.data);
      default: {
        const unknown: never = command.type;
        return unknown;
      }
    }
  },
};

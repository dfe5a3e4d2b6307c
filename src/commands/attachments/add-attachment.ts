import type { AttachmentAdded, AttachmentEvent } from '../../events/attachment-events.js';
import type { Decider } from '../decider.js';
import { refuse } from '../refusal.js';

/** R-RFIL-02: an attachment's first version; its id is new, so a second one on the stream is a conflict. */
export const addAttachment: Decider<boolean, AttachmentAdded['data'], AttachmentEvent> = {
  initialState: false,
  evolve: () => true,
  decide: (exists, cmd) => (exists ? refuse('conflict', 'this attachment exists') : [{ type: 'AttachmentAdded', data: cmd }]),
};

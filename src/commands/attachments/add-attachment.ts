import type { AttachmentAdded, AttachmentEvent } from '../../events/attachment-events.js';
import { deciderOf, type CommandOf } from '../decider.js';
import { refuse, type Refusal } from '../refusal.js';

/** R-RFIL-02: an attachment's first version; its id is new, so a second one on the stream is a conflict. */
export const addAttachment = (exists: boolean, cmd: AttachmentAdded['data']): readonly AttachmentEvent[] | Refusal =>
  exists ? refuse('conflict', 'this attachment exists') : [{ type: 'AttachmentAdded', data: cmd }];

const attachmentDecisions = { AddAttachment: addAttachment };

/** Every command on an organization's attachment (`attachment-<orgFileId>`): one so far. */
export type AttachmentCommand = CommandOf<typeof attachmentDecisions>;

/** The attachment aggregate's one decider (its state: whether the attachment exists). */
export const attachmentDecider = deciderOf(false, (): boolean => true, attachmentDecisions);

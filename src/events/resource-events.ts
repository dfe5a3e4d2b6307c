import { eitherOf, streamOf, type StreamRef } from './decoder.js';
import { documentEvents, type DocumentEvent } from './document-events.js';
import { fileEvents, type FileEvent } from './file-events.js';

/**
 * Documents and files share one namespace of resource ids (a request grants either by id), so
 * `resource-<id>` holds one document's or one file's versions. A command on it reads both
 * families: the other family's events leave its state alone, so a file's id is no document.
 */
export type ResourceEvent = DocumentEvent | FileEvent;

export const resourceEvents = eitherOf(documentEvents, fileEvents);

export const resourceStream = (resourceId: string): StreamRef<ResourceEvent> => streamOf(resourceEvents, `resource-${resourceId}`);

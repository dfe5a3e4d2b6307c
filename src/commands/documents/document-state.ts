import type { JsonValue } from '../../events/envelope.js';
import type { ResourceEvent } from '../../events/resource-events.js';
import type { Refusal } from '../refusal.js';

type DocumentFields = {
  readonly vaultId: string;
  readonly name: string;
  readonly description: string | null;
  readonly schemaRef: string | null;
  readonly documentSchema: JsonValue;
  /** The spec's sourceVersion: how many versions were published. */
  readonly version: number;
};

export type LiveDocument = DocumentFields & { readonly status: 'live' };

export type DocumentState = { readonly status: 'none' } | LiveDocument | (DocumentFields & { readonly status: 'deleted' });

export const noDocument: DocumentState = { status: 'none' };

export function evolveDocument(state: DocumentState, event: ResourceEvent): DocumentState {
  switch (event.type) {
    case 'DocumentCreated': {
      const { vaultId, name, description, schemaRef, documentSchema, version } = event.data;
      return { status: 'live', vaultId, name, description, schemaRef, documentSchema, version };
    }
    case 'DocumentUpdated':
      return state.status === 'none'
        ? state
        : { ...state, name: event.data.name, description: event.data.description, version: event.data.version };
    case 'DocumentDeleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
    // A file's versions leave a document's state as it was: a file's id reads as no document.
    case 'FileUploaded':
    case 'FileVersionAdded':
      return state;
  }
}

/** One command's decision on a document: the document decider (document-decider.ts) switches to it. */
export type DocumentDecision<C> = (state: DocumentState, command: C) => readonly ResourceEvent[] | Refusal;
export const documentDecision = <C>(decide: DocumentDecision<C>): DocumentDecision<C> => decide;

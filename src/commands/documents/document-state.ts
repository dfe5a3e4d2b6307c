import type { JsonValue } from '../../events/envelope.js';
import type { ResourceEvent } from '../../events/resource-events.js';
import { refuse, type Refusal } from '../refusal.js';

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

/** What a change of a document is told of the caller, as the service read it for the document's vault. */
export type DocumentAccess = {
  /** The vault the caller's access was read for: a document of another vault answers not_found, as an unknown one. */
  readonly vaultId: string;
  /** The caller may change that vault's resources: their own vault, or a legal entity they are a MANAGER of. */
  readonly mayChange: boolean;
};

/**
 * A document the caller may change. One of another vault, deleted or never created is not_found;
 * one the caller may read but not change (a MEMBER's view of an entity's document) is forbidden,
 * since denying a document they can see would be a lie.
 */
export function changeableDocument(state: DocumentState, access: DocumentAccess): LiveDocument | Refusal {
  if (state.status !== 'live' || state.vaultId !== access.vaultId) return refuse('not_found', 'no such document');
  if (!access.mayChange) return refuse('forbidden', 'only a MANAGER of the legal entity may change its resources');
  return state;
}

import { refuse, type Refusal } from './refusal.js';

/** What a change of a vault's resource (a document or a file) is told of the caller, as the service read it for the resource's vault. */
export type ResourceAccess = {
  /** The vault the caller's access was read for: a resource of another vault answers not_found, as an unknown one. */
  readonly vaultId: string;
  /** The caller may change that vault's resources: their own vault, or a legal entity they are a MANAGER of. */
  readonly mayChange: boolean;
};

/** What the refusal says a MEMBER may not change: a document's words have always been the vault's resources. */
const CHANGED = { document: 'resources', file: 'files' } as const;

/**
 * A live resource the caller may change. One of another vault, deleted or never created is
 * not_found; one the caller may read but not change (a MEMBER's view of an entity's resource) is
 * forbidden, since denying a resource they can see would be a lie.
 */
export function changeable<S extends { readonly status: string; readonly vaultId?: string }>(
  state: S,
  access: ResourceAccess,
  noun: 'document' | 'file',
): Extract<S, { readonly status: 'live' }> | Refusal {
  if (state.status !== 'live' || state.vaultId !== access.vaultId) return refuse('not_found', `no such ${noun}`);
  if (!access.mayChange) return refuse('forbidden', `only a MANAGER of the legal entity may change its ${CHANGED[noun]}`);
  // A status of 'live' is the live variant of S: TypeScript does not narrow a generic union by it.
  return state as Extract<S, { readonly status: 'live' }>;
}

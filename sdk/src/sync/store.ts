import { open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SyncState, SyncStore } from './state.js';

/**
 * The state in a JSON file, replaced atomically: written beside it, flushed, renamed over it, and the
 * folder flushed, so a kill at any instant leaves the old state or the new one, never half of one.
 */
export function fileStore(path: string): SyncStore {
  return {
    async load() {
      try {
        return JSON.parse(await readFile(path, 'utf8')) as SyncState;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async save(state) {
      const next = `${path}.next`;
      const file = await open(next, 'w');
      try {
        await file.writeFile(JSON.stringify(state));
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(next, path);
      const folder = await open(dirname(path), 'r');
      try {
        await folder.sync();
      } finally {
        await folder.close();
      }
    },
  };
}

/** The state in memory: for a process that syncs on a schedule and may start over from the feed after a restart. */
export function memoryStore(initial?: SyncState): SyncStore & { readonly state: SyncState | undefined } {
  let state = initial;
  return {
    get state() {
      return state;
    },
    load: async () => state,
    save: async (next) => void (state = structuredClone(next)),
  };
}

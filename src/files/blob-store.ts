import { readFile } from 'node:fs/promises';
import type { SqlDb } from '../db/sql.js';

const sql = {
  put: 'INSERT INTO files.blobs (blob_id, sealed) VALUES ($1, $2)',
  get: 'SELECT sealed FROM files.blobs WHERE blob_id = $1',
  delete: 'DELETE FROM files.blobs WHERE blob_id = $1',
};

/**
 * Sealed file bytes in the service database. A blob is written before the event that names it,
 * so an event never points at a missing blob; a crash between the two leaves an unreferenced
 * blob, which is harmless (sealed, and no id reaches a client).
 */
export class BlobStore {
  private constructor(private readonly db: SqlDb) {}

  static async open(db: SqlDb): Promise<BlobStore> {
    await db.exec(await readFile(new URL('./blobs.sql', import.meta.url), 'utf8'));
    return new BlobStore(db);
  }

  async put(blobId: string, sealed: Buffer): Promise<void> {
    await this.db.query(sql.put, [blobId, sealed]);
  }

  async get(blobId: string): Promise<Buffer | null> {
    const row = (await this.db.query<{ sealed: Uint8Array }>(sql.get, [blobId])).rows[0];
    // node-postgres answers a Buffer, PGlite a Uint8Array: view either without copying.
    return row ? Buffer.from(row.sealed.buffer, row.sealed.byteOffset, row.sealed.byteLength) : null;
  }

  /** Only for a blob no event names: its append was refused. */
  async delete(blobId: string): Promise<void> {
    await this.db.query(sql.delete, [blobId]);
  }
}

import { readFile } from 'node:fs/promises';
import type { SqlDb } from '../db/sql.js';

const sql = {
  put: 'INSERT INTO files.blobs (blob_id, sealed) VALUES ($1, $2)',
  get: 'SELECT sealed FROM files.blobs WHERE blob_id = $1',
  // Stored EXTERNAL (uncompressed): both read only the TOAST chunks they need, never the whole blob.
  size: 'SELECT octet_length(sealed) AS size FROM files.blobs WHERE blob_id = $1',
  slice: 'SELECT substring(sealed FROM $2 FOR $3) AS part FROM files.blobs WHERE blob_id = $1',
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

  /** The sealed length in bytes; null when there is no such blob. */
  async size(blobId: string): Promise<number | null> {
    const row = (await this.db.query<{ size: number }>(sql.size, [blobId])).rows[0];
    return row ? Number(row.size) : null;
  }

  /** `length` sealed bytes from `offset` (0-based), for readers that must not hold a whole blob (R-EXP-03); null when it is gone. */
  async slice(blobId: string, offset: number, length: number): Promise<Buffer | null> {
    const row = (await this.db.query<{ part: Uint8Array }>(sql.slice, [blobId, offset + 1, length])).rows[0];
    return row ? Buffer.from(row.part.buffer, row.part.byteOffset, row.part.byteLength) : null;
  }

  /** Only for a blob no event names: its append was refused. */
  async delete(blobId: string): Promise<void> {
    await this.db.query(sql.delete, [blobId]);
  }
}

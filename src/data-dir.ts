import { chmod, mkdir, stat } from 'node:fs/promises';

/**
 * DATA_DIR holds dev keys, the mail outbox (login codes) and the embedded database: only the
 * service's own user may enter it. A directory we find open to others is closed (it is ours by
 * configuration), so an upgrade from a version that made it 0755 is tightened on its first start.
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { mode } = await stat(dir);
  if ((mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/** Files the service writes into DATA_DIR: readable and writable by its own user only. */
export const PRIVATE_FILE_MODE = 0o600;

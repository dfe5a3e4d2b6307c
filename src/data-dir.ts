import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { chmod, link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';

/**
 * DATA_DIR holds dev keys, the mail outbox (login codes) and the embedded database: only the
 * service's own user may enter it. A directory found open to others is closed: it is ours by
 * configuration, whoever made it.
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const { mode } = await stat(dir);
  if ((mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/** Files the service writes into DATA_DIR: readable and writable by its own user only. */
export const PRIVATE_FILE_MODE = 0o600;

/** Names the process that holds DATA_DIR's embedded database (contract §10.12). */
export const LOCK_FILE = 'data-dir.lock';

/**
 * Who holds the lock: `started` tells a live holder from a later process that got its pid (Linux's
 * /proc); `host` the machine or container whose pids these are (absent in a lock that names none).
 */
type Holder = {
  readonly pid: number;
  readonly started: string | null;
  readonly host?: string;
  readonly command: string;
  readonly since: string;
};

export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(dataDir: string, holder: Holder) {
    super(
      `DATA_DIR ${dataDir} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}): ` +
        'one process at a time may open the embedded database; stop it first, or give this one another DATA_DIR' +
        (holder.host !== undefined && holder.host !== HOST
          ? ` (it holds it from ${holder.host}, whose processes this one cannot see: if none runs there, remove ${LOCK_FILE})`
          : ''),
    );
  }
}

export type DataDirLock = { release(): Promise<void> };

/** Lock files this process holds: a second open of one within the process is refused like another process's. */
const heldHere = new Set<string>();

/**
 * Contract §10.12: the embedded database in DATA_DIR belongs to one process, since two PGlite
 * instances on one directory destroy it. The lock is a file created exclusively (written aside,
 * then linked into place: never seen half-written) that names its process; one naming a process
 * that is gone is taken over. It is removed on release and when the process exits.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  await privateDir(dataDir);
  const path = join(dataDir, LOCK_FILE);
  const mine = JSON.stringify(holderOf(process.pid));
  for (let attempt = 0; !(await placeExclusively(path, mine)); attempt++) {
    const found = await readLock(path);
    if (found?.holder && isLive(found.holder, path)) throw new DataDirInUseError(dataDir, found.holder);
    if (attempt === 5) throw new Error(`could not take over the stale lock ${path}`);
    if (found) await removeStale(path, found.text);
  }
  heldHere.add(path);
  const releaseNow = () => {
    heldHere.delete(path);
    try {
      if (readFileSync(path, 'utf8') === mine) unlinkSync(path);
    } catch {
      // Already gone: nothing to release.
    }
  };
  process.once('exit', releaseNow);
  return {
    release: async () => {
      process.off('exit', releaseNow);
      releaseNow();
    },
  };
}

/** Refuses, as lockDataDir would, while a live process holds DATA_DIR; creates and changes nothing. */
export async function refuseWhileInUse(dataDir: string): Promise<void> {
  const path = join(dataDir, LOCK_FILE);
  const found = await readLock(path);
  if (found?.holder && isLive(found.holder, path)) throw new DataDirInUseError(dataDir, found.holder);
}

/** This machine or container, as far as its pids go: its host name and the kernel's boot id. */
const HOST = `${hostname()}/${bootId()}`;

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown-boot';
  }
}

function holderOf(pid: number): Holder {
  return {
    pid,
    started: startTimeOf(pid),
    host: HOST,
    command: relative(process.cwd(), process.argv[1] ?? ''),
    since: new Date().toISOString(),
  };
}

/**
 * Writes `text` to `path` unless a file is there: written aside, then linked into place (link fails
 * when the file exists), so processes racing agree on one and nobody reads a half-written file.
 */
export async function placeExclusively(path: string, text: string): Promise<boolean> {
  const aside = `${path}.${randomUUID()}.tmp`;
  await writeFile(aside, text, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    await link(aside, path);
    return true;
  } catch (e) {
    if (isCode(e, 'EEXIST')) return false;
    throw e;
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

/** The lock's text and its holder (null for a file that names none); null when there is no lock. */
async function readLock(path: string): Promise<{ text: string; holder: Holder | null } | null> {
  const text = await readIfPresent(path);
  if (text === null) return null;
  try {
    const holder = JSON.parse(text) as Holder;
    return { text, holder: Number.isInteger(holder.pid) && holder.pid > 0 ? holder : null };
  } catch {
    return { text, holder: null };
  }
}

/** A file's text, or null when there is none. */
export async function readIfPresent(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if (isCode(e, 'ENOENT')) return null;
    throw e;
  }
}

function isLive(holder: Holder, path: string): boolean {
  // Another container or machine sharing DATA_DIR: its pids mean nothing here, so it may well run.
  if (holder.host !== undefined && holder.host !== HOST) return true;
  // Our own pid in a lock we do not hold is a previous run's (a container restarted with the same pids).
  if (holder.pid === process.pid) return heldHere.has(path);
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    // EPERM: it runs, as another user.
    if (isCode(e, 'ESRCH')) return false;
  }
  const started = startTimeOf(holder.pid);
  return holder.started === null || started === null || started === holder.started;
}

/**
 * Moves the stale lock aside before deleting it, so two processes taking it over at once cannot
 * delete the lock one of them has just placed: whoever finds another text aside puts it back.
 */
async function removeStale(path: string, staleText: string): Promise<void> {
  const aside = `${path}.${randomUUID()}.stale`;
  try {
    await rename(path, aside);
  } catch (e) {
    if (isCode(e, 'ENOENT')) return;
    throw e;
  }
  if ((await readFile(aside, 'utf8')) !== staleText) await link(aside, path).catch(() => undefined);
  await unlink(aside);
}

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), or null without /proc. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const isCode = (e: unknown, code: string): boolean => typeof e === 'object' && e !== null && 'code' in e && e.code === code;

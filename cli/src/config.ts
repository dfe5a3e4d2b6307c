import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, Exit, notSignedIn } from './errors.js';

/** What `dss login` and `dss use` remember between runs. */
export type Config = {
  readonly url?: string;
  readonly email?: string;
  /** The user session's token (dss login). */
  readonly userToken?: string;
  /** The organization chosen with dss use, and its member token. */
  readonly organizationId?: string;
  readonly memberToken?: string;
};

/** $DSS_CONFIG, or ~/.config/dss/config.json. */
export const configPath = (): string => process.env.DSS_CONFIG || join(homedir(), '.config', 'dss', 'config.json');

export async function readConfig(): Promise<Config> {
  const path = configPath();
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    return JSON.parse(text) as Config;
  } catch {
    throw new CliError(Exit.failure, 'bad_config', `${path} is not JSON: delete it and run dss login`);
  }
}

/** Replaces the file whole; it holds tokens, so only its owner may read it (0600, in a 0700 folder when it makes one). */
export async function writeConfig(config: Config): Promise<void> {
  const path = configPath();
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const next = `${path}.next`;
  await writeFile(next, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // mode applies only to a file writeFile creates: a leftover .next keeps its own.
  await chmod(next, 0o600);
  await rename(next, path);
}

/** The service's origin: $DSS_URL, else the one dss login stored. */
export function serviceUrl(config: Config): string {
  const url = process.env.DSS_URL || config.url;
  if (!url) throw notSignedIn();
  return url;
}

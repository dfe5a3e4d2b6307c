import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEB_DIST } from '../../../src/api/web/pages.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The built pages (`npm run build:web`), built now when a fresh clone has none yet. */
export function builtPages(): string {
  if (existsSync(join(WEB_DIST, 'index.html'))) return WEB_DIST;
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const run = spawnSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`vite build failed:\n${run.stdout}\n${run.stderr}`);
  return WEB_DIST;
}

/** dss: the command-line interface of the data-sharing service (docs/cli.md). */
import { run } from './program.js';

// A reader that stopped early (`dss events tail | head`) is not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

process.exitCode = await run(process.argv);

import { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { authCommands } from './commands/auth.js';
import { copyCommands } from './commands/copies.js';
import { eventCommands } from './commands/events.js';
import { proposalCommands } from './commands/proposals.js';
import { receiptCommands } from './commands/receipts.js';
import { requestCommands } from './commands/requests.js';
import { syncCommand } from './commands/sync.js';
import { webhookCommands } from './commands/webhooks.js';
import { Exit, report, type ExitCode } from './errors.js';
import { examples } from './help.js';
import { MODES } from './output.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const ABOUT = `
Output: text on a terminal; through a pipe, NDJSON (one JSON object per line, one per list item).
  --output text|ndjson chooses either.

Credentials: $DSS_CONFIG, else ~/.config/dss/config.json (written with mode 0600).
  DSS_URL overrides the service URL that dss login stored.

Exit codes:
  0  success
  1  unexpected failure
  2  usage error (unknown command or option, a missing argument)
  3  not signed in, or the service answered 401
  4  the service refused (any other 4xx problem), or receipts did not verify (dss receipts verify)
  5  the service is unavailable or unreachable (429 or 503 after retries, connection refused)
  Problems are printed on stderr as "dss: <code>: <detail>".`;

/** The whole command tree; settings made before the subcommands are inherited by them (exitOverride: usage errors exit 2). */
export function program(): Command {
  const dss = new Command('dss')
    .description('The data-sharing service from a terminal or a script, as a member of an organization (docs/cli.md)')
    .version(version)
    .addOption(new Option('-o, --output <mode>', 'text or ndjson (default: text on a terminal, ndjson through a pipe)').choices(MODES))
    .exitOverride()
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', ABOUT);
  for (const add of [
    authCommands,
    requestCommands,
    copyCommands,
    proposalCommands,
    eventCommands,
    webhookCommands,
    receiptCommands,
    syncCommand,
  ])
    add(dss);
  return examples(
    dss,
    'dss login --url https://share.example.com --email ops@acme.example',
    'dss orgs && dss use 6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
    'dss requests list --state active | jq -r .requestId',
    'dss sync --state ./dss-sync.json',
  );
}

/** Runs argv (process.argv's shape) and answers the exit code; problems go to stderr. */
export async function run(argv: readonly string[]): Promise<ExitCode> {
  try {
    await program().parseAsync(argv);
    return Exit.ok;
  } catch (error) {
    const { exit, line } = report(error);
    if (line) process.stderr.write(`${line}\n`);
    return exit;
  }
}

import { createApi, ok, signIn } from '@dss/sdk';
import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { readConfig, writeConfig } from '../config.js';
import { report, usage } from '../errors.js';
import { examples } from '../help.js';
import { outputOf } from '../output.js';
import { memberToken, userSession } from '../session.js';

/** login, logout, orgs, use: who the CLI is, and for which organization. */
export function authCommands(dss: Command): void {
  examples(
    dss
      .command('login')
      .summary('Sign in by email code (read from the terminal, or from stdin)')
      .description('Sign in by email code: the code mailed is asked for at the terminal, or read from the first line of stdin')
      .option('--url <baseUrl>', "the service's origin (default: $DSS_URL, else the one stored)")
      .requiredOption('--email <email>', 'your address')
      .action(async (options: { url?: string; email: string }, command: Command) => {
        const stored = await readConfig();
        const url = options.url ?? (process.env.DSS_URL || stored.url);
        if (!url) throw usage('name the service: --url <baseUrl> (or set DSS_URL)');
        const session = await signIn({ baseUrl: url, email: options.email, code: readCode });
        // The organization chosen stays chosen when the same person signs in again to the same service.
        const same = stored.url === url && stored.email?.toLowerCase() === options.email.toLowerCase();
        const organizationId = same ? stored.organizationId : undefined;
        await writeConfig({ url, email: options.email, userToken: session.token, ...(organizationId ? { organizationId } : {}) });
        outputOf(command).item({ url, email: options.email, expiresAt: session.expiresAt, organizationId: organizationId ?? null }, () =>
          organizationId
            ? `Signed in as ${options.email} at ${url}; still using organization ${organizationId}.`
            : `Signed in as ${options.email} at ${url}.\nNext: dss orgs, then dss use <organizationId>.`,
        );
      }),
    'dss login --url https://share.example.com --email ops@acme.example',
    'fetch-code-from-mailbox | dss login --email ops@acme.example',
  );

  examples(
    dss
      .command('logout')
      .description('End the session at the service and forget the stored tokens')
      .action(async (_options: unknown, command: Command) => {
        const config = await readConfig();
        const url = process.env.DSS_URL || config.url;
        if (url && config.userToken) {
          try {
            await ok(createApi({ baseUrl: url, token: config.userToken }).POST('/auth/sign-out'));
          } catch (error) {
            // Forgetting the tokens here is what was asked; an ended or unreachable session only gets a note.
            process.stderr.write(
              `dss: the service did not confirm the sign-out (${report(error).line ?? 'no answer'}); forgetting the tokens anyway\n`,
            );
          }
        }
        await writeConfig(config.url ? { url: config.url } : {});
        outputOf(command).item({ signedOut: true }, () => 'Signed out.');
      }),
    'dss logout',
  );

  examples(
    dss
      .command('orgs')
      .description('The organizations you are a member of (with your user token)')
      .action(async (_options: unknown, command: Command) => {
        const { baseUrl, userToken, config } = await userSession();
        const { organizations } = await ok(createApi({ baseUrl, token: userToken }).GET('/org/v1/organizations'));
        await outputOf(command).list(
          organizations,
          [
            ['ORGANIZATION', (m) => m.organizationId],
            ['NAME', (m) => m.name],
            ['PERMISSIONS', (m) => m.permissions.join(',')],
            ['JOINED', (m) => m.joinedAt],
            ['IN USE', (m) => (m.organizationId === config.organizationId ? 'yes' : '')],
          ],
          'You are a member of no organization.',
        );
      }),
    'dss orgs',
    'dss orgs | jq -r \'select(.name == "Acme") | .organizationId\'',
  );

  examples(
    dss
      .command('use')
      .description('Sign in as a member of an organization (POST /org/v1/token); the other commands act for it')
      .argument('<organizationId>', 'one of dss orgs')
      .action(async (organizationId: string, _options: unknown, command: Command) => {
        const { baseUrl, userToken, config } = await userSession();
        const token = await memberToken(baseUrl, userToken, organizationId);
        await writeConfig({ ...config, organizationId, memberToken: token });
        outputOf(command).item({ organizationId }, () => `Using organization ${organizationId}.`);
      }),
    'dss use 6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  );
}

/** The code mailed: asked for at a terminal, else the first line of stdin. */
async function readCode(email: string): Promise<string> {
  const terminal = process.stdin.isTTY === true;
  const lines = createInterface({ input: process.stdin, ...(terminal ? { output: process.stderr } : {}) });
  try {
    if (terminal) return await lines.question(`The code mailed to ${email}: `);
    for await (const line of lines) return line;
    throw usage('stdin ended before a code: pipe the code mailed, or run dss login at a terminal');
  } finally {
    lines.close();
  }
}

import { DssProblem, type Copy } from '@dss/sdk';
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { CliError, Exit, usage } from '../errors.js';
import { examples } from '../help.js';
import { outputOf, table, write } from '../output.js';
import { memberOrganization } from '../session.js';

/** keep, copies, correct: the organization's copies of a request's records. */
export function copyCommands(dss: Command): void {
  examples(
    dss
      .command('keep')
      .summary("Keep copies of a slot's granted records")
      .description("Keep copies of a slot's granted records (all of them, or one party's); a version already kept is not copied twice")
      .argument('<requestId>')
      .argument('<slotId>')
      .option('--participant <alias>', "only this party's records (an alias of the slot's records)")
      .action(async (requestId: string, slotId: string, options: { participant?: string }, command: Command) => {
        const answer = await (await memberOrganization()).keep(requestId, slotId, options.participant);
        const out = outputOf(command);
        if (out.mode === 'ndjson') {
          for (const adoption of answer.adoptions) write(JSON.stringify({ kind: 'adoption', ...adoption }));
          for (const skipped of answer.skipped) write(JSON.stringify({ kind: 'skipped', ...skipped }));
          return;
        }
        write(
          answer.adoptions.length === 0
            ? 'Nothing kept.'
            : table(answer.adoptions, [
                ['ADOPTION', (a) => a.adoptionId],
                ['RECORD', (a) => a.sourceResourceId],
                ['PARTICIPANT', (a) => a.participant?.alias],
                ['VERSION', (a) => a.sourceVersion],
                ['ORG VERSION', (a) => a.orgVersion],
                ['STATE', (a) => a.state],
              ]),
        );
        if (answer.skipped.length > 0)
          write(
            `\nSkipped\n${table(answer.skipped, [
              ['RECORD', (s) => s.resourceId],
              ['PARTICIPANT', (s) => s.participant?.alias],
              ['REASON', (s) => s.reason],
              ['MESSAGE', (s) => s.message],
            ])}`,
          );
      }),
    'dss keep 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f 0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f',
    'dss keep 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f 0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f --participant p_3f9a',
  );

  examples(
    dss
      .command('copies')
      .summary('Every kept copy of a request, with its head')
      .description('Every kept copy of a request, with the head of its chain (currentData: what the organization uses today)')
      .argument('<requestId>')
      .action(async (requestId: string, _options: unknown, command: Command) => {
        const copies = await (await memberOrganization()).copies(requestId);
        await outputOf(command).list(
          copies,
          [
            ['SLOT', (c) => c.adoption.slotId],
            ['RECORD', (c) => c.adoption.sourceResourceId],
            ['PARTICIPANT', (c) => c.participant?.alias],
            ['VERSION', (c) => c.adoption.sourceVersion],
            ['ORG VERSION', (c) => c.currentOrgVersion],
            ['ORIGIN', (c) => c.currentOrigin],
            ['DATA', (c) => c.currentData ?? c.data],
          ],
          'No copies kept.',
        );
      }),
    'dss copies 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f',
    "dss copies 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f | jq '.currentData'",
  );

  examples(
    dss
      .command('correct')
      .summary("Correct the organization's copy of a record from a JSON file")
      .description(
        "Replace the organization's copy of a record with its own revision (never the person's data). " +
          'The expected versions come from the newest kept copy of the record, read just before; ' +
          'if the copy moves meanwhile, nothing is written (exit 4, version_conflict).',
      )
      .argument('<requestId>')
      .argument('<slotId>')
      .requiredOption('--file <data.json>', "the complete corrected document as JSON, validated against the copy's schema ('-': stdin)")
      .option('--resource <sourceResourceId>', "the person's record, when the slot holds several")
      .action(async (requestId: string, slotId: string, options: { file: string; resource?: string }, command: Command) => {
        const data = await documentOf(options.file);
        const organization = await memberOrganization();
        const copy = copyToCorrect(await organization.copies(requestId), slotId, options.resource);
        if (!copy) throw new CliError(Exit.refused, 'no_copy', `no kept copy of that record in slot ${slotId}: keep it first (dss keep)`);
        const corrected = await organization
          .correct(requestId, slotId, {
            sourceResourceId: copy.adoption.sourceResourceId,
            expectedSourceVersion: copy.adoption.sourceVersion,
            expectedOrgVersion: copy.currentOrgVersion,
            data,
          })
          .catch((error: unknown) => {
            if (error instanceof DssProblem && error.is('version_conflict'))
              throw new CliError(
                Exit.refused,
                'version_conflict',
                'the copy moved since it was read (a newer version was kept, or another member corrected it); nothing was written. ' +
                  'Look at dss copies, then correct again.',
              );
            throw error;
          });
        outputOf(command).item(
          corrected,
          () =>
            `Corrected record ${copy.adoption.sourceResourceId}: the organization's copy is now at org version ${corrected.orgVersion}.`,
        );
      }),
    'dss correct 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f 0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f --file name.json',
    'echo \'{"givenName":"Ann","familyName":"Sample"}\' | dss correct <requestId> <slotId> --file - --resource <sourceResourceId>',
  );
}

/** The newest kept copy of a record (highest adoption.sourceVersion, spec §4.3 rules for correct), among those `match` picks. */
export function newestCopy(copies: readonly Copy[], match: (copy: Copy) => boolean): Copy | undefined {
  return copies.filter(match).reduce<Copy | undefined>((newest, copy) => {
    if (!newest || copy.adoption.sourceVersion > newest.adoption.sourceVersion) return copy;
    return newest;
  }, undefined);
}

/** The slot's record to correct: the one named, else the only one the slot's copies hold. */
function copyToCorrect(copies: readonly Copy[], slotId: string, resource: string | undefined): Copy | undefined {
  const inSlot = copies.filter((c) => c.adoption.slotId === slotId);
  const records = [...new Set(inSlot.map((c) => c.adoption.sourceResourceId))];
  if (resource === undefined && records.length > 1)
    throw usage(`slot ${slotId} holds copies of ${records.length} records: name one with --resource (${records.join(', ')})`);
  return newestCopy(inSlot, (c) => resource === undefined || c.adoption.sourceResourceId === resource);
}

/** The document a file (or stdin, '-') holds: a JSON object. */
async function documentOf(path: string): Promise<Record<string, unknown>> {
  const source = path === '-' ? 'stdin' : path;
  let text: string;
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (error) {
    throw usage(`cannot read ${source}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw usage(`${source} is not JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw usage(`${source} must hold a JSON object: the whole document`);
  return data as Record<string, unknown>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

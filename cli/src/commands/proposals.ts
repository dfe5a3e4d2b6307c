import type { Command } from 'commander';
import { describeChange, diff } from '../diff.js';
import { examples } from '../help.js';
import { outputOf } from '../output.js';
import { memberOrganization } from '../session.js';
import { newestCopy } from './copies.js';

/** proposals list, show, adopt, dismiss: newer versions of kept records, waiting for a decision. */
export function proposalCommands(dss: Command): void {
  const proposals = examples(
    dss.command('proposals').description("A request's open proposals: newer versions of records the organization keeps"),
    'dss proposals list 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f',
    'dss proposals show 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f 5e4d3c2b-1a09-4f8e-8d7c-6b5a4f3e2d1c',
  );

  examples(
    proposals
      .command('list')
      .description("The request's open proposals")
      .argument('<requestId>')
      .action(async (requestId: string, _options: unknown, command: Command) => {
        await outputOf(command).list(
          await (await memberOrganization()).proposals(requestId),
          [
            ['PROPOSAL', (p) => p.proposalId],
            ['SLOT', (p) => p.slotId],
            ['RECORD', (p) => p.resourceId],
            ['PARTICIPANT', (p) => p.participant?.alias],
            ['VERSION', (p) => p.newVersion],
            ['KIND', (p) => `${p.itemKind} ${p.itemTarget}`],
            ['PROPOSED', (p) => p.proposedAt],
          ],
          'No open proposals.',
        );
      }),
    'dss proposals list 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f',
  );

  examples(
    proposals
      .command('show')
      .summary('The proposed version against the copy in use, field by field')
      .description(
        'The proposed version, field by field against the copy the organization uses today (~ changed, + added, - removed). ' +
          "Reading it writes a read receipt on the person's side.",
      )
      .argument('<requestId>')
      .argument('<proposalId>')
      .action(async (requestId: string, proposalId: string, _options: unknown, command: Command) => {
        const organization = await memberOrganization();
        const [candidate, copies] = await Promise.all([organization.candidate(requestId, proposalId), organization.copies(requestId)]);
        const copy = newestCopy(copies, (c) => c.adoption.sourceResourceId === candidate.proposal.resourceId);
        const current = copy ? (copy.currentData ?? copy.data) : undefined;
        const changes = diff(current ?? {}, candidate.data);
        const held = copy && {
          sourceVersion: copy.adoption.sourceVersion,
          orgVersion: copy.currentOrgVersion,
          origin: copy.currentOrigin,
          data: current,
        };
        outputOf(command).item(
          {
            proposal: candidate.proposal,
            name: candidate.name,
            version: candidate.version,
            data: candidate.data,
            current: held ?? null,
            changes,
          },
          () =>
            [
              `Proposal ${proposalId}: ${candidate.name} version ${candidate.version} of record ${candidate.proposal.resourceId}`,
              held
                ? `against the copy in use: version ${held.sourceVersion}, org version ${held.orgVersion} (${held.origin})`
                : 'no copy of this record is kept yet',
              '',
              ...(changes.length === 0 ? ['(no change)'] : changes.map(describeChange)),
            ].join('\n'),
        );
      }),
    'dss proposals show 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f 5e4d3c2b-1a09-4f8e-8d7c-6b5a4f3e2d1c',
  );

  examples(
    proposals
      .command('adopt')
      .description("Keep the proposed version as the next version of the record's copy, and close the proposal")
      .argument('<requestId>')
      .argument('<proposalId>')
      .action(async (requestId: string, proposalId: string, _options: unknown, command: Command) => {
        const adoption = await (await memberOrganization()).adoptProposal(requestId, proposalId);
        outputOf(command).item(
          adoption,
          () => `Kept version ${adoption.sourceVersion} of record ${adoption.sourceResourceId} (adoption ${adoption.adoptionId}).`,
        );
      }),
    'dss proposals adopt 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f 5e4d3c2b-1a09-4f8e-8d7c-6b5a4f3e2d1c',
  );

  examples(
    proposals
      .command('dismiss')
      .description('Close the proposal and leave the copy as it is')
      .argument('<requestId>')
      .argument('<proposalId>')
      .action(async (requestId: string, proposalId: string, _options: unknown, command: Command) => {
        const dismissed = await (await memberOrganization()).dismissProposal(requestId, proposalId);
        outputOf(command).item({ proposalId, dismissed }, () =>
          dismissed
            ? `Dismissed proposal ${proposalId}.`
            : `No open proposal ${proposalId} any more (decided by another member, or superseded by a newer version).`,
        );
      }),
    'dss proposals dismiss 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f 5e4d3c2b-1a09-4f8e-8d7c-6b5a4f3e2d1c',
  );
}

import type { Request, RequestDetail } from '@dss/sdk';
import type { Command } from 'commander';
import { examples } from '../help.js';
import { outputOf, table, type Column } from '../output.js';
import { memberOrganization } from '../session.js';

const requestColumns: readonly Column<Request>[] = [
  ['REQUEST', (r) => r.requestId],
  ['STATE', (r) => r.state],
  ['RECIPIENT', (r) => r.recipientEmail],
  ['MANIFEST', (r) => `${r.manifestName} v${r.manifestVersion}`],
  ['CREATED', (r) => r.createdAt],
];

/** requests list, requests show. */
export function requestCommands(dss: Command): void {
  const requests = examples(
    dss.command('requests').description("The organization's requests"),
    'dss requests list --state active',
    'dss requests show 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f',
  );

  examples(
    requests
      .command('list')
      .description('Every request, newest first (all pages)')
      .option(
        '--state <state>',
        'only in this state: pending, active, suspended, revoked, rejected_by_recipient, rejected_by_sender, expired',
      )
      .option('--email <email>', 'only those sent to this recipient')
      .action(async (options: { state?: string; email?: string }, command: Command) => {
        const organization = await memberOrganization();
        await outputOf(command).list(organization.requests(options), requestColumns, 'No requests.');
      }),
    'dss requests list',
    'dss requests list --state active --email ann@example.com',
    'dss requests list | jq -r .requestId',
  );

  examples(
    requests
      .command('show')
      .description("A request's slots, records, kept copies and open proposals")
      .argument('<requestId>')
      .action(async (requestId: string, _options: unknown, command: Command) => {
        const detail = await (await memberOrganization()).request(requestId);
        outputOf(command).item(detail, () => describe(detail));
      }),
    'dss requests show 2b7c0f7e-1d3a-4c55-9f0e-6a1b2c3d4e5f',
  );
}

function describe(detail: RequestDetail): string {
  const r = detail.request;
  // Per (slot, record), the newest version kept: beside the record's sourceVersion, it says whether the current one is held.
  const kept = new Map<string, number>();
  for (const a of detail.adoptions)
    kept.set(`${a.slotId}/${a.sourceResourceId}`, Math.max(kept.get(`${a.slotId}/${a.sourceResourceId}`) ?? 0, a.sourceVersion));
  const records = detail.items.flatMap((item) => item.records.map((record) => ({ item, record })));
  return [
    `Request ${r.requestId}: ${r.state}`,
    `Recipient  ${r.recipientEmail}`,
    `Manifest   ${detail.manifestName} v${r.manifestVersion}`,
    `Created    ${r.createdAt}`,
    '',
    'Slots',
    table(detail.items, [
      ['SLOT', (i) => i.slotId],
      ['LABEL', (i) => i.label],
      ['KIND', (i) => `${i.kind} ${i.target}`],
      ['ADOPTION', (i) => i.adoption],
      ['STATUS', (i) => i.status],
      ['VERBS', (i) => i.verbs.join(',')],
    ]),
    '',
    'Records',
    records.length === 0
      ? 'none granted'
      : table(records, [
          ['SLOT', ({ item }) => item.slotId],
          ['RECORD', ({ record }) => record.resourceId],
          ['PARTICIPANT', ({ record }) => record.participant?.alias],
          ['STATUS', ({ record }) => record.reason ?? record.status],
          ['VERSION', ({ record }) => record.sourceVersion],
          ['KEPT', ({ item, record }) => kept.get(`${item.slotId}/${record.resourceId}`)],
        ]),
    '',
    'Open proposals',
    detail.proposals.length === 0
      ? 'none'
      : table(detail.proposals, [
          ['PROPOSAL', (p) => p.proposalId],
          ['SLOT', (p) => p.slotId],
          ['RECORD', (p) => p.resourceId],
          ['VERSION', (p) => p.newVersion],
          ['PARTICIPANT', (p) => p.participant?.alias],
        ]),
  ].join('\n');
}

import { fileStore, sync, type SyncResult, type SyncStep } from '@dss/sdk';
import type { Command } from 'commander';
import { examples } from '../help.js';
import { outputOf, table, write } from '../output.js';
import { memberOrganization } from '../session.js';

/** sync: the SDK's resumable sync (docs/sdk.md), its state in a file. */
export function syncCommand(dss: Command): void {
  examples(
    dss
      .command('sync')
      .summary('Keep new versions and adopt proposals since the last run; print what the organization uses')
      .description(
        'Read the events feed from where the last run stopped, keep new versions on manual slots, adopt open proposals, ' +
          'and print what the organization uses today. Safe to kill and run again: it resumes from the state file.',
      )
      .requiredOption('--state <file>', 'where the sync keeps its cursor and decisions between runs (made on the first)')
      .action(async (options: { state: string }, command: Command) => {
        const organization = await memberOrganization();
        const out = outputOf(command);
        const progress = process.stderr.isTTY === true;
        const result = await sync(organization, {
          store: fileStore(options.state),
          onProgress: (step) => {
            if (out.mode === 'ndjson') write(JSON.stringify(step));
            if (progress) process.stderr.write(`${describeStep(step)}\n`);
          },
        });
        out.item({ phase: 'summary', ...result }, () => summary(result));
      }),
    'dss sync --state ./dss-sync.json',
    'dss sync --state ./dss-sync.json | jq \'select(.phase == "summary") | .view\'',
  );
}

function describeStep(step: SyncStep): string {
  switch (step.phase) {
    case 'feed':
      return `feed: ${step.events} events read, ${step.dirty} requests to reconcile`;
    case 'request':
      return `request ${step.done + 1}/${step.of}: ${step.requestId}`;
    case 'kept':
      return `  kept ${step.adoptions.length} new versions`;
    case 'decided':
      return `  proposal ${step.proposalId}: ${step.decision}`;
    default: {
      const _: never = step;
      return _;
    }
  }
}

function summary(result: SyncResult): string {
  const views = Object.values(result.view);
  const held = views.flatMap((view) => view.held.map((h) => ({ ...h, requestId: view.requestId, state: view.state })));
  const notes = views.flatMap((view) => [
    ...view.skipped.map((s) => `${view.requestId}: skipped ${s.resourceId || `slot ${s.slotId}`}: ${s.reason} (${s.message})`),
    ...(view.pending > 0 ? [`${view.requestId}: ${view.pending} copies pending until the organization's key is warm`] : []),
  ]);
  return [
    `Kept ${result.kept} new versions; proposals adopted ${result.adopted}, dismissed ${result.dismissed}.`,
    `Cursor: ${result.cursor ?? '-'}`,
    '',
    held.length === 0
      ? 'No copies held.'
      : table(held, [
          ['REQUEST', (h) => h.requestId],
          ['STATE', (h) => h.state],
          ['SLOT', (h) => h.slotId],
          ['PARTICIPANT', (h) => h.participant],
          ['RECORD', (h) => h.resourceId],
          ['VERSION', (h) => h.sourceVersion],
          ['ORG VERSION', (h) => h.orgVersion],
          ['ORIGIN', (h) => h.origin],
          ['DATA', (h) => h.data],
        ]),
    ...notes,
  ].join('\n');
}

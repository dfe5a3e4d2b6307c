import type { FeedEvent, FeedEventType } from '@dss/sdk';
import { InvalidArgumentError, type Command } from 'commander';
import { commaList, examples } from '../help.js';
import { outputOf } from '../output.js';
import { memberOrganization } from '../session.js';

/** events tail: the organization's events feed, from a cursor, once or for as long as it runs. */
export function eventCommands(dss: Command): void {
  const events = examples(dss.command('events').description("The organization's events feed (docs/events.md)"), 'dss events tail --follow');

  examples(
    events
      .command('tail')
      .description('Print the events after a cursor (from the first when none); with --follow, go on polling until Ctrl-C')
      .option('--after <cursor>', 'resume after this cursor (printed on stderr when it stops)')
      // The service refuses a type outside its catalogue (400 invalid_request, exit 4).
      .option('--types <types>', 'only these types, comma-separated (e.g. copy.kept,proposal.opened)', commaList)
      .option('--follow', 'keep polling for new events until interrupted (SIGINT)')
      .option('--interval <seconds>', 'with --follow, seconds between polls', seconds, 2)
      .action(async (options: { after?: string; types?: FeedEventType[]; follow?: boolean; interval: number }, command: Command) => {
        const organization = await memberOrganization();
        const out = outputOf(command);
        const stop = new AbortController();
        const interrupt = () => stop.abort();
        process.once('SIGINT', interrupt);
        let cursor = options.after ?? null;
        try {
          const pages = organization.events({
            after: cursor,
            types: options.types,
            follow: options.follow === true,
            intervalMs: options.interval * 1000,
            signal: stop.signal,
          });
          for await (const page of pages) {
            for (const event of page.events) out.item(event, () => eventLine(event));
            cursor = page.nextCursor ?? cursor;
          }
        } finally {
          process.off('SIGINT', interrupt);
        }
        if (cursor) process.stderr.write(`dss: read up to ${cursor}; resume with --after ${cursor}\n`);
      }),
    'dss events tail',
    'dss events tail --types record.updated,proposal.opened --follow',
    'dss events tail --after ODI5LjIwLjA | jq -r .type',
  );
}

function eventLine(event: FeedEvent): string {
  const request = ('requestId' in event ? event.requestId : '-').padEnd(36);
  return `${event.occurredAt}  ${event.type.padEnd(17)}  ${request}  ${event.id}`;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

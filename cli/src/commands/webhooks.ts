import type { NewWebhook } from '@dss/sdk';
import type { Command } from 'commander';
import { commaList, examples } from '../help.js';
import { outputOf } from '../output.js';
import { memberOrganization } from '../session.js';

/** webhooks add, list, remove, deliveries, retry, test (docs/webhooks.md). */
export function webhookCommands(dss: Command): void {
  const webhooks = examples(
    dss.command('webhooks').description("Endpoints the organization's events are POSTed to, signed (docs/webhooks.md)"),
    'dss webhooks add https://hooks.acme.example/dss --events record.updated',
    'dss webhooks list',
  );

  examples(
    webhooks
      .command('add')
      .description('Add a webhook; its signing secret is printed this once')
      .argument('<url>', 'an https URL on a public host')
      // The service refuses a type outside its catalogue (400 invalid_request, exit 4).
      .requiredOption('--events <types>', 'the event types it is sent, comma-separated', commaList)
      .option('--description <text>', 'what it is for')
      .action(async (url: string, options: { events: NewWebhook['eventTypes']; description?: string }, command: Command) => {
        const created = await (
          await memberOrganization()
        ).webhooks.add({ url, eventTypes: options.events, description: options.description ?? null });
        outputOf(command).item(
          created,
          () =>
            `Webhook ${created.webhook.webhookId} sends ${created.webhook.eventTypes.join(', ')} to ${created.webhook.url}.\n` +
            `Its signing secret, shown this once (store it to verify deliveries):\n${created.secret}`,
        );
      }),
    'dss webhooks add https://hooks.acme.example/dss --events request.accepted,record.updated --description Onboarding',
  );

  examples(
    webhooks
      .command('list')
      .description("The organization's webhooks, the earliest first")
      .action(async (_options: unknown, command: Command) => {
        await outputOf(command).list(
          await (await memberOrganization()).webhooks.list(),
          [
            ['WEBHOOK', (w) => w.webhookId],
            ['ENABLED', (w) => (w.enabled ? 'yes' : 'no')],
            ['URL', (w) => w.url],
            ['EVENTS', (w) => w.eventTypes.join(',')],
            ['DESCRIPTION', (w) => w.description],
          ],
          'No webhooks.',
        );
      }),
    'dss webhooks list',
  );

  examples(
    webhooks
      .command('remove')
      .description('Delete a webhook: nothing more is sent to it, and its delivery log is forgotten')
      .argument('<webhookId>')
      .action(async (webhookId: string, _options: unknown, command: Command) => {
        await (await memberOrganization()).webhooks.remove(webhookId);
        outputOf(command).item({ webhookId, deleted: true }, () => `Removed webhook ${webhookId}.`);
      }),
    'dss webhooks remove 8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
  );

  examples(
    webhooks
      .command('deliveries')
      .description("A webhook's delivery log: every attempt, the newest first")
      .argument('<webhookId>')
      .action(async (webhookId: string, _options: unknown, command: Command) => {
        await outputOf(command).list(
          (await memberOrganization()).webhooks.deliveries(webhookId),
          [
            ['AT', (d) => d.at],
            ['EVENT', (d) => d.eventId],
            ['TYPE', (d) => d.eventType],
            ['ATTEMPT', (d) => d.attempt],
            ['STATUS', (d) => d.status],
            ['HTTP', (d) => d.responseStatus],
            ['MS', (d) => d.durationMs],
            ['ERROR', (d) => d.error],
          ],
          'No deliveries yet.',
        );
      }),
    'dss webhooks deliveries 8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
    'dss webhooks deliveries 8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d | jq \'select(.status == "failed")\'',
  );

  examples(
    webhooks
      .command('retry')
      .description('One more attempt of an event delivered to the webhook, now')
      .argument('<webhookId>')
      .argument('<eventId>', 'from its delivery log')
      .action(async (webhookId: string, eventId: string, _options: unknown, command: Command) => {
        const queued = await (await memberOrganization()).webhooks.retry(webhookId, eventId);
        outputOf(command).item(
          queued,
          () => `Queued another attempt of event ${queued.eventId}: see dss webhooks deliveries ${webhookId}.`,
        );
      }),
    'dss webhooks retry 8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d 0f6c3c55-08c5-6a3e-2dfa-3b41d3f3ac4e',
  );

  examples(
    webhooks
      .command('test')
      .description('Send a webhook.test event to this webhook only')
      .argument('<webhookId>')
      .action(async (webhookId: string, _options: unknown, command: Command) => {
        const queued = await (await memberOrganization()).webhooks.test(webhookId);
        outputOf(command).item(queued, () => `Queued test event ${queued.eventId}: see dss webhooks deliveries ${webhookId}.`);
      }),
    'dss webhooks test 8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
  );
}

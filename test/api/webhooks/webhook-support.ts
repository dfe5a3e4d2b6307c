import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../../src/logger.js';
import type { DeliveryOptions } from '../../../src/webhooks/index.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import type { Workers } from '../../../src/workers/reactor-runner.js';
import { startWebhookWorkers } from '../../../src/workers/webhook-workers.js';
import { openWorkerQueue } from '../../support/copy-workers.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from '../support/service.js';
import { orgClient, type OrgClient } from '../org/org-client.js';

/** What a receiver got: the headers, the body as sent, and the status it answered. */
export type Received = { readonly headers: Record<string, string>; readonly body: string; readonly answered: number };

/** How a receiver answers its n-th request (from 0): a status, and headers. */
export type Answering = (n: number) => { readonly status: number; readonly headers?: Readonly<Record<string, string>> };

/** A real HTTP receiver on loopback, answering as told and keeping every request. */
export async function receiver(answering: Answering = () => ({ status: 204 })) {
  const received: Received[] = [];
  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { status, headers = {} } = answering(received.length);
      received.push({ headers: flat(req.headers), body: Buffer.concat(chunks).toString('utf8'), answered: status });
      res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** The bodies it answered 2xx, parsed. */
    delivered: () =>
      received.filter((r) => r.answered < 300).map((r) => JSON.parse(r.body) as { id: string; type: string; organizationId: string }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof receiver>>;

const flat = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));

/** The webhook workers beside a test service, on a queue of their own, with the schedule in milliseconds. */
export async function startDeliveries(service: TestService, options: DeliveryOptions = {}): Promise<{ queue: JobQueue; workers: Workers }> {
  const queue = await openWorkerQueue(service);
  const workers = await startWebhookWorkers({
    db: service.db,
    store: service.store,
    queue,
    deliveries: service.domain!.webhooks.deliveries(queue, { schedule: [30, 30, 30, 30, 30, 30], ...options }),
    logger: createLogger(process.env.DEBUG_WORKERS ? 'debug' : 'silent'),
    feedCaughtUp: (p) => service.engine.waitFor(p),
    reactorPollMs: 50,
  });
  return { queue, workers };
}

/** Polls until `check` holds (up to about 15 s), then answers what it last saw. */
export async function eventually<T>(read: () => Promise<T> | T, check: (value: T) => boolean, what: string): Promise<T> {
  let last: T = await read();
  for (let i = 0; i < 300 && !check(last); i++) {
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  expect(check(last), `${what}: ${JSON.stringify(last)}`).to.equal(true);
  return last;
}

export type WebhookView = {
  webhookId: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  enabled: boolean;
  createdAt: string;
};
export type DeliveryView = {
  eventId: string;
  eventType: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  at: string;
  error: string | null;
};

/** The member's calls of this feature, each expecting success. */
export function webhookCalls(api: OrgClient) {
  return {
    async create(token: string, url: string, eventTypes: readonly string[] = ['key.warmed', 'key.sealed']) {
      const r = await api.post('/org/v1/webhooks', token, { url, eventTypes });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body as { webhook: WebhookView; secret: string };
    },
    async log(token: string, webhookId: string): Promise<DeliveryView[]> {
      const r = await api.get(`/org/v1/webhooks/${webhookId}/deliveries?limit=500`, token);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.deliveries as DeliveryView[];
    },
    async events(token: string): Promise<Array<{ id: string; type: string; organizationId: string }>> {
      const r = await api.get('/org/v1/events?limit=1000', token);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.events as Array<{ id: string; type: string; organizationId: string }>;
    },
    /** A key.sealed and a key.warmed in the organization's feed: the member seals the key and signs in again. */
    async sealAndWarm(userToken: string, organizationId: string, token: string): Promise<string> {
      const sealed = await api.post('/org/v1/key/seal', token);
      expect(sealed.status, JSON.stringify(sealed.body)).to.equal(200);
      return api.signIn(userToken, organizationId);
    },
  };
}

/** What a suite works with: filled in by webhookSuite's before(), the token moving on as the member signs in again. */
export type WebhookWorld = {
  service: TestService;
  queue: JobQueue;
  workers: Workers;
  mailer: RecordingMailer;
  api: OrgClient;
  calls: ReturnType<typeof webhookCalls>;
  /** Acme's founder, its id, and their member token. */
  owner: { email: string; token: string };
  organizationId: string;
  token: string;
  /** A receiver the suite closes after it. */
  listen(answering?: Answering): Promise<Receiver>;
};

/**
 * A suite's service (with these settings and clock), its webhook workers (the schedule in
 * milliseconds), and Acme with its founder signed in; all stopped after the suite.
 */
export function webhookSuite(options: { env?: Record<string, string>; now?: () => Date; deliveries?: DeliveryOptions } = {}): WebhookWorld {
  const receivers: Receiver[] = [];
  const world = {
    listen: async (answering?: Answering) => {
      const r = await receiver(answering);
      receivers.push(r);
      return r;
    },
  } as WebhookWorld;
  before(async () => {
    world.mailer = new RecordingMailer();
    world.service = await startTestService({
      domain: { mailer: world.mailer, ...(options.env ? { env: options.env } : {}), ...(options.now ? { now: options.now } : {}) },
    });
    Object.assign(world, await startDeliveries(world.service, options.deliveries));
    world.api = orgClient(world.service.url, world.mailer);
    world.calls = webhookCalls(world.api);
    world.owner = await world.api.user();
    world.organizationId = await world.api.organization(world.owner.token, 'Acme');
    world.token = await world.api.signIn(world.owner.token, world.organizationId);
  });
  after(async () => {
    await world.workers?.stop();
    await world.queue?.close();
    await Promise.all(receivers.map((r) => r.close()));
    await world.service?.close();
  });
  return world;
}

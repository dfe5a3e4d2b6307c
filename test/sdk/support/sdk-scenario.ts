import { signInMember, type Organization } from '@dss/sdk';
import type { CopyWorkers } from '../../../src/workers/copy-workers.js';
import type { JobQueue } from '../../../src/workers/queue/queue.js';
import { orgClient } from '../../api/org/org-client.js';
import { driver, MANUAL_NAME_SLOT, type Driver, type User } from '../../api/support/driver.js';
import { startTestService, type TestService } from '../../api/support/service.js';
import { openWorkerQueue, startWorkers } from '../../support/copy-workers.js';
import { RecordingMailer } from '../../support/recording-mailer.js';
import { until } from '../../support/until.js';

/**
 * A real service with its copy workers (proposals come from a reactor), an organization with a
 * manual name slot, and Ann, connected, with her name shared: what an integrator's sync meets.
 */
export type SdkScenario = {
  readonly service: TestService;
  readonly mailer: RecordingMailer;
  readonly d: Driver;
  readonly ann: User;
  readonly requestId: string;
  readonly slotId: string;
  /** Ann's PersonFullName document, shared in the slot. */
  readonly documentId: string;
  /** The organization's owner, as the SDK signs in. */
  readonly organization: Organization;
  readonly memberToken: string;
  readonly organizationId: string;
  readonly ownerToken: string;
  readonly ownerEmail: string;
  /** Ann publishes her next version of the name; answers its number once the feed and the proposals show it. */
  publish(data: Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
};

/** `env`: the service's settings beside the tests' defaults (WEBHOOK_ALLOW_PRIVATE for a receiver on loopback, say). */
export async function sdkScenario(options: { readonly env?: NodeJS.ProcessEnv } = {}): Promise<SdkScenario> {
  const mailer = new RecordingMailer();
  const service = await startTestService({ domain: { mailer, ...(options.env ? { env: options.env } : {}) } });
  const queue: JobQueue = await openWorkerQueue(service);
  const workers: CopyWorkers = await startWorkers(service, queue);
  const api = orgClient(service.url, mailer);
  const owner = await api.user();
  const organizationId = await api.organization(owner.token, 'Acme');
  const memberToken = await api.signIn(owner.token, organizationId);
  const d = driver({ api: () => api, member: () => memberToken });
  const manifest = await d.manifest([MANUAL_NAME_SLOT]);
  const slotId = manifest.slots[0]!.slotId;
  const ann = await api.user();
  const documentId = await d.createDoc(ann, 'PersonFullName', { givenName: 'Ann', familyName: 'Example' });
  const requestId = await d.connected(manifest.manifestId, ann, { [slotId]: [documentId] });
  const organization = await signInMember({ baseUrl: service.url, userToken: owner.token, organizationId });

  return {
    service,
    mailer,
    d,
    ann,
    requestId,
    slotId,
    documentId,
    organization,
    memberToken,
    organizationId,
    ownerToken: owner.token,
    ownerEmail: owner.email,
    async publish(data) {
      const version = await d.updateDoc(ann, documentId, data);
      // The reactor opens a proposal, unless a sync running meanwhile already kept the version.
      await until(async () => {
        const detail = await organization.request(requestId);
        return [...detail.proposals.map((p) => p.newVersion), ...detail.adoptions.map((a) => a.sourceVersion)].includes(version);
      });
      await untilFeedHas(organization, (e) => e.type === 'record.updated' && e.versions?.sourceVersion === version);
      return version;
    },
    async close() {
      await workers.stop();
      await queue.close();
      await service.close();
    },
  };
}

/** Waits until the organization's feed (projected on its own loop) holds an event `match` picks. */
export async function untilFeedHas(organization: Organization, match: (event: FeedEventOf) => boolean): Promise<void> {
  await until(async () => {
    for await (const page of organization.events({ limit: 1000 })) if (page.events.some((e) => match(e))) return true;
    return false;
  });
}

/** A feed event read loosely: every field a type may carry. */
type FeedEventOf = { type: string; requestId?: string; versions?: { sourceVersion?: number; orgVersion?: number } };

import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './openapi.js';
import { DssProblem, problemOf } from './problem.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export type Schemas = components['schemas'];
export type Request = Schemas['Request'];
export type RequestDetail = Schemas['RequestDetail'];
export type Adoption = Schemas['Adoption'];
export type Copy = Schemas['Copy'];
export type Proposal = Schemas['Proposal'];
export type Candidate = Schemas['Candidate'];
export type FeedEvent = Schemas['FeedEvent'];
export type FeedEventType = FeedEvent['type'];
/** The JSON body of an answer of the generated document. */
export type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Op<P extends keyof paths, M extends 'get' | 'post' | 'delete'> = NonNullable<paths[P][M]>;
export type KeepAnswer = Json<Op<'/org/v1/requests/{requestId}/slots/{slotId}/adopt', 'post'>['responses'][200]>;
export type Correction = NonNullable<
  Op<'/org/v1/requests/{requestId}/slots/{slotId}/correct', 'post'>['requestBody']
>['content']['application/json'];
export type Corrected = Json<Op<'/org/v1/requests/{requestId}/slots/{slotId}/correct', 'post'>['responses'][200]>;
export type EventsPage = Json<Op<'/org/v1/events', 'get'>['responses'][200]>;
export type NewWebhook = NonNullable<Op<'/org/v1/webhooks', 'post'>['requestBody']>['content']['application/json'];
export type CreatedWebhook = Json<Op<'/org/v1/webhooks', 'post'>['responses'][201]>;
export type Webhook = CreatedWebhook['webhook'];
export type Delivery = Json<Op<'/org/v1/webhooks/{webhookId}/deliveries', 'get'>['responses'][200]>['deliveries'][number];
export type RequestsQuery = { readonly state?: string; readonly email?: string; readonly limit?: number };

/** A bearer token, or a function that gives the current one (after a renewal, say). */
export type Token = string | (() => string | Promise<string>);

export type ClientOptions = {
  /** The service's origin, e.g. https://share.example.com */
  readonly baseUrl: string;
  readonly token?: Token;
  readonly retry?: RetryOptions;
  /** The transport; globalThis.fetch by default. */
  readonly fetch?: (request: globalThis.Request) => Promise<Response>;
};

/** The typed client for every route of GET /openapi.json, with the token and the retries added: `api.GET('/org/v1/apps')`. */
export function createApi(options: ClientOptions): Client<paths> {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(options.fetch ?? ((request) => fetch(request)), options.retry),
  });
  const token = options.token;
  if (token !== undefined)
    api.use({
      async onRequest({ request }) {
        request.headers.set('authorization', `Bearer ${typeof token === 'string' ? token : await token()}`);
        return request;
      },
    });
  return api;
}

/** The data of a call, or its problem thrown as a DssProblem. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw await problemOf(response, error);
  return data as T;
}

/**
 * An organization's side of the service, as a member: requests, keeps, copies, corrections,
 * proposals, the events feed and webhooks. Every method throws a DssProblem on a refusal.
 */
export class Organization {
  readonly api: Client<paths>;

  constructor(options: ClientOptions & { readonly token: Token }) {
    this.api = createApi(options);
  }

  /** Every request of the organization, newest first, page after page (R-REQ-32). */
  requests(query: RequestsQuery = {}): AsyncGenerator<Request> {
    return paged(async (cursor) => {
      const page = await ok(this.api.GET('/org/v1/requests', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } }));
      return { items: page.requests, nextCursor: page.nextCursor };
    });
  }

  request(requestId: string): Promise<RequestDetail> {
    return ok(this.api.GET('/org/v1/requests/{requestId}', { params: { path: { requestId } } }));
  }

  /** Keeps the slot's granted records (or the participant's); idempotent per (slot, record, version). */
  keep(requestId: string, slotId: string, participant?: string): Promise<KeepAnswer> {
    return ok(
      this.api.POST('/org/v1/requests/{requestId}/slots/{slotId}/adopt', {
        params: { path: { requestId, slotId } },
        ...(participant === undefined ? {} : { body: { participant } }),
      }),
    );
  }

  async copies(requestId: string): Promise<Copy[]> {
    return (await ok(this.api.GET('/org/v1/requests/{requestId}/copies', { params: { path: { requestId } } }))).copies;
  }

  /** The organization's own revision of a copy; 409 version_conflict when the copy moved (re-read and re-apply). */
  correct(requestId: string, slotId: string, correction: Correction): Promise<Corrected> {
    return ok(
      this.api.POST('/org/v1/requests/{requestId}/slots/{slotId}/correct', { params: { path: { requestId, slotId } }, body: correction }),
    );
  }

  async proposals(requestId: string): Promise<Proposal[]> {
    return (await ok(this.api.GET('/org/v1/requests/{requestId}/proposals', { params: { path: { requestId } } }))).proposals;
  }

  /** The proposed version's content; it writes a read receipt on the person's side. */
  candidate(requestId: string, proposalId: string): Promise<Candidate> {
    return ok(
      this.api.GET('/org/v1/requests/{requestId}/proposals/{proposalId}/candidate', { params: { path: { requestId, proposalId } } }),
    );
  }

  adoptProposal(requestId: string, proposalId: string): Promise<Adoption> {
    return ok(this.api.POST('/org/v1/requests/{requestId}/proposals/{proposalId}/adopt', { params: { path: { requestId, proposalId } } }));
  }

  /** False when no open proposal had the id any more (decided by another member, or superseded). */
  async dismissProposal(requestId: string, proposalId: string): Promise<boolean> {
    const path = '/org/v1/requests/{requestId}/proposals/{proposalId}/dismiss';
    return (await ok(this.api.POST(path, { params: { path: { requestId, proposalId } } }))).dismissed;
  }

  /** One page of the events feed after `after` (absent: from the first event). */
  eventsPage(options: { readonly after?: string | null; readonly types?: readonly FeedEventType[]; readonly limit?: number } = {}) {
    const query = {
      ...(options.after ? { after: options.after } : {}),
      ...(options.types?.length ? { types: options.types.join(',') } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    };
    return ok(this.api.GET('/org/v1/events', { params: { query } }));
  }

  /**
   * The feed's pages from `after` until it is caught up; with `follow`, waits `intervalMs` and reads on
   * for ever (until `signal` aborts). Each page carries the cursor to store once its events are handled.
   */
  async *events(
    options: {
      readonly after?: string | null;
      readonly types?: readonly FeedEventType[];
      readonly limit?: number;
      readonly follow?: boolean;
      readonly intervalMs?: number;
      readonly signal?: AbortSignal;
    } = {},
  ): AsyncGenerator<EventsPage> {
    let after = options.after ?? null;
    while (!options.signal?.aborted) {
      const page = await this.eventsPage({ ...options, after });
      const moved = page.nextCursor !== null && page.nextCursor !== after;
      if (page.events.length > 0 || moved) yield page;
      after = page.nextCursor ?? after;
      if (page.events.length === 0 || !moved) {
        if (!options.follow) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.intervalMs ?? 2000);
          options.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
    }
  }

  readonly webhooks = {
    /** The secret is in this answer only: store it to verify deliveries (verifyWebhook). */
    add: (webhook: NewWebhook): Promise<CreatedWebhook> => ok(this.api.POST('/org/v1/webhooks', { body: webhook })),
    list: async (): Promise<Webhook[]> => (await ok(this.api.GET('/org/v1/webhooks'))).webhooks,
    remove: (webhookId: string) => ok(this.api.DELETE('/org/v1/webhooks/{webhookId}', { params: { path: { webhookId } } })),
    /** The delivery log, newest first, page after page. */
    deliveries: (webhookId: string): AsyncGenerator<Delivery> =>
      paged(async (cursor) => {
        const query = cursor ? { cursor } : {};
        const page = await ok(this.api.GET('/org/v1/webhooks/{webhookId}/deliveries', { params: { path: { webhookId }, query } }));
        return { items: page.deliveries, nextCursor: page.nextCursor };
      }),
    retry: (webhookId: string, eventId: string) =>
      ok(this.api.POST('/org/v1/webhooks/{webhookId}/deliveries/{eventId}/retry', { params: { path: { webhookId, eventId } } })),
    test: (webhookId: string) => ok(this.api.POST('/org/v1/webhooks/{webhookId}/test', { params: { path: { webhookId } } })),
  };
}

/** The items of a cursor-paged list, reading the next page only when the caller gets that far. */
async function* paged<T>(
  page: (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor?: string | null }>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    yield* next.items;
    cursor = next.nextCursor ?? undefined;
  } while (cursor);
}

export { DssProblem };

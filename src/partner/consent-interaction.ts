import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { isRefusal, refuse, type Refusal } from '../commands/refusal.js';
import type { EventContext } from '../events/envelope.js';
import type { Caller } from '../identity/identity-service.js';
import { parseId, type RequestId } from '../ids.js';
import type { SubjectAliases } from '../requests/participant-alias.js';
import type { PersonRequests } from '../requests/person-requests.js';
import type { OAuthClient } from '../organizations/index.js';
import { DATA_REQUEST, PARTNER_SCOPE, requestIdOf } from './authorization-server.js';

export type ConsentInteractionDeps = {
  readonly provider: Provider;
  readonly resource: string;
  readonly requests: Pick<PersonRequests, 'open' | 'mine' | 'authorizeApp'>;
  readonly clients: (clientId: string) => Promise<OAuthClient | null>;
  readonly subjects: SubjectAliases;
};

/** What the hosted consent page is asked (contract §13): which app, of which organization, for which manifest. */
export type ConsentAsked = {
  readonly uid: string;
  readonly app: { readonly clientId: string; readonly name: string };
  readonly organizationId: string;
  readonly manifestId: string;
  /** R-PART-07: the app carries its organization's identity provider: the page offers "Continue with <organization>". */
  readonly partnerSignIn: { readonly organization: string } | null;
};

type Http = { readonly req: IncomingMessage; readonly res: ServerResponse };

/**
 * The authorization's interaction (contract §13): the person signed in opens the app's request of the
 * manifest (or finds the connection they already have), answers it on the consent page as any
 * request, and the grant then names it; denying ends the authorization with access_denied.
 */
export class ConsentInteraction {
  constructor(private readonly deps: ConsentInteractionDeps) {}

  async asked(http: Http): Promise<ConsentAsked | Refusal> {
    const details = await this.inProgress(http);
    if (isRefusal(details)) return details;
    const { uid, client, manifestId } = details;
    return {
      uid,
      app: { clientId: client.clientId, name: client.name },
      organizationId: client.organizationId,
      manifestId,
      partnerSignIn: client.identityProvider ? { organization: client.organizationName } : null,
    };
  }

  /**
   * The request the person answers: their active connection for the manifest, or the pending one
   * this app opened, or a new one opened now (initiatedBy recipient, initiatingClientId the app).
   */
  async open(
    http: Http,
    caller: Caller,
    context: EventContext,
  ): Promise<{ readonly requestId: RequestId; readonly active: boolean } | Refusal> {
    const details = await this.inProgress(http);
    if (isRefusal(details)) return details;
    const { client, manifestId } = details;
    const mine = await this.deps.requests.mine(caller);
    const same = mine.filter((r) => r.manifestId === manifestId && r.organizationId === client.organizationId);
    const active = same.find((r) => r.state === 'active');
    if (active) return { requestId: active.requestId, active: true };
    const pending = same.find((r) => r.state === 'pending' && r.initiatingClientId === client.clientId);
    if (pending) return { requestId: pending.requestId, active: false };
    const app = parseId<'app'>(client.clientId);
    const manifest = parseId<'manifest'>(manifestId);
    if (!app || !manifest) return refuse('not_found', 'no such manifest of the app’s organization');
    const opened = await this.deps.requests.open(caller, app, manifest, context);
    return isRefusal(opened) ? opened : { requestId: opened.requestId, active: false };
  }

  /** The person answered: the request must be theirs, of this manifest, and active; the grant names it. Answers where the browser goes. */
  async finish(http: Http, caller: Caller, requestId: string, context: EventContext): Promise<{ readonly redirectTo: string } | Refusal> {
    const details = await this.inProgress(http);
    if (isRefusal(details)) return details;
    const { client, manifestId } = details;
    const request = (await this.deps.requests.mine(caller)).find((r) => r.requestId === requestId);
    if (!request || request.manifestId !== manifestId || request.organizationId !== client.organizationId)
      return refuse('not_found', 'no such request of this app’s manifest');
    if (request.state !== 'active') return refuse('conflict', 'accept the request first, or deny');
    // Contract §14: the approval is a consent transition of its own, in the log, so it has its receipt.
    const authorized = await this.deps.requests.authorizeApp(caller, request.requestId, client.clientId, context);
    if (isRefusal(authorized)) return authorized;
    const accountId = this.deps.subjects.aliasFor(client.organizationId, caller.identityId);
    const grant = new this.deps.provider.Grant({ accountId, clientId: client.clientId });
    grant.addOIDCScope(`${PARTNER_SCOPE} offline_access`);
    grant.addResourceScope(this.deps.resource, PARTNER_SCOPE);
    grant.rar = [{ type: DATA_REQUEST, manifest_id: manifestId, request_id: request.requestId }];
    const grantId = await grant.save();
    const redirectTo = await this.deps.provider.interactionResult(http.req, http.res, {
      login: { accountId, remember: false },
      consent: { grantId },
    });
    return { redirectTo };
  }

  /** The person said no: the app's redirect with access_denied (RFC 6749 §4.1.2.1). */
  async deny(http: Http): Promise<{ readonly redirectTo: string } | Refusal> {
    const details = await this.inProgress(http);
    if (isRefusal(details)) return details;
    const redirectTo = await this.deps.provider.interactionResult(http.req, http.res, {
      error: 'access_denied',
      error_description: 'the person did not share',
    });
    return { redirectTo };
  }

  /** The interaction as the provider stored it (by its cookie), with the app and the manifest it asks for. */
  async inProgress(http: Http): Promise<{ readonly uid: string; readonly client: OAuthClient; readonly manifestId: string } | Refusal> {
    let interaction: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      interaction = await this.deps.provider.interactionDetails(http.req, http.res);
    } catch {
      return refuse('not_found', 'no such authorization in progress: start again from the app');
    }
    const client = await this.deps.clients(String(interaction.params.client_id));
    const rar = parseDetails(interaction.params.authorization_details);
    const manifestId = rar.find((d) => d.type === DATA_REQUEST)?.manifest_id;
    if (!client || typeof manifestId !== 'string' || requestIdOf(rar) !== null)
      return refuse('not_found', 'no such authorization in progress');
    return { uid: interaction.uid, client, manifestId };
  }
}

function parseDetails(raw: unknown): Array<{ readonly type: string; readonly [field: string]: unknown }> {
  try {
    const parsed: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
    return Array.isArray(parsed)
      ? parsed.filter(
          (d): d is { type: string } => typeof d === 'object' && d !== null && typeof (d as { type?: unknown }).type === 'string',
        )
      : [];
  } catch {
    return [];
  }
}

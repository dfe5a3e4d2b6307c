import type { Request } from 'express';
import type { AccountErasure } from '../../identity/account-erasure.js';
import type { Caller, IdentityService } from '../../identity/identity-service.js';
import type { DocumentService } from '../../documents/document-service.js';
import type { EntityService } from '../../entities/index.js';
import type { EventContext } from '../../events/envelope.js';
import type { ExportLinks } from '../../export/export-links.js';
import type { FileService } from '../../files/index.js';
import type { PersonRequests } from '../../requests/index.js';
import { clientAddress, type ClientAddress } from '../../limits/client-address.js';
import { eventContext } from '../request-context.js';
import { CallerStanding } from './caller-standing.js';
import { graphqlError } from './errors.js';

/** What every resolver gets: the authenticated caller and the services behind the schema. */
export type GraphqlContext = {
  readonly caller: Caller;
  readonly identities: IdentityService;
  readonly documents: DocumentService;
  readonly files: Pick<FileService, 'list'>;
  readonly entities: EntityService;
  readonly requests: PersonRequests;
  readonly exports: Pick<ExportLinks, 'issue'>;
  readonly erasure: AccountErasure;
  /** The caller's network address, for the code limits (as on /auth). */
  readonly client: ClientAddress;
  readonly eventContext: () => EventContext;
  /** R-GQL-03: before user.register only register and me may be called. */
  readonly requireRegistered: () => Promise<void>;
  /** R-ERAS-09: an erasure ends the request it runs in. */
  readonly standing: CallerStanding;
};

export type GraphqlServices = {
  readonly identities: IdentityService;
  readonly documents: DocumentService;
  readonly files: Pick<FileService, 'list'>;
  readonly entities: EntityService;
  readonly requests: PersonRequests;
  readonly exports: Pick<ExportLinks, 'issue'>;
  readonly erasure: AccountErasure;
  readonly now: () => Date;
};

/** `registeredAtAuth`: what the token check read; a person who registers within this request is looked up again. */
export function graphqlContext(req: Request, caller: Caller, services: GraphqlServices, registeredAtAuth: boolean): GraphqlContext {
  let registered: Promise<boolean> | null = registeredAtAuth ? Promise.resolve(true) : null;
  return {
    caller,
    identities: services.identities,
    documents: services.documents,
    files: services.files,
    entities: services.entities,
    requests: services.requests,
    exports: services.exports,
    erasure: services.erasure,
    client: clientAddress(req.ip),
    eventContext: () => eventContext(req, { kind: 'user', id: caller.identityId }, services.now()),
    requireRegistered: async () => {
      registered ??= services.identities.isRegistered(caller);
      if (!(await registered)) throw graphqlError('FORBIDDEN', 'register first: call user.register before anything else');
    },
    standing: new CallerStanding(),
  };
}

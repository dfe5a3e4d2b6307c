import { Loaded, useLoad } from '../../actions';
import { notFoundAs, type Answer } from '../../api';
import { ConsentReceipts, receiptsCalledFor } from '../../consent/consent-receipts';
import { Link } from '../../navigation';
import { day, orgState, when } from '../../words';
import type { OrgSession } from './org-session';
import { Copies, SealedCopies } from './request/copies';
import { History, receiptWords } from './request/history';
import { Items } from './request/items';
import { readRequest, requestPath, type RequestView } from './request/model';
import { Proposals } from './request/proposals';

/**
 * Contract §11 /org/{organizationId}/requests/{requestId}: one request as the member may see it:
 * what was asked and shared, the kept copies and their chains, open proposals, the history and the
 * signed consent receipts (§14); Keep, Correct, Adopt and Dismiss only with request_manage. Another
 * organization's request is not found.
 */
export function OrgRequestDetail({ org, requestId }: { readonly org: OrgSession; readonly requestId: string }) {
  const [load, reload] = useLoad(() =>
    readRequest(org.api, requestId, org.can('request_manage')).catch(notFoundAs('This request was not found.')),
  );

  return (
    <>
      <p>
        <Link to={`/org/${org.organizationId}/requests`}>All requests</Link>
      </p>
      <Loaded load={load}>
        {(view) => (
          <>
            <Summary view={view} />
            <Items org={org} view={view} reload={reload} />
            {view.sealed ? <SealedCopies org={org} reload={reload} /> : view.copies && <Copies org={org} view={view} reload={reload} />}
            <Proposals org={org} view={view} reload={reload} />
            <History history={view.history} items={view.detail.items} />
            <ConsentReceipts
              requestId={requestId}
              read={() => org.api.get<Answer<'get', '/org/v1/requests/{requestId}/receipts'>>(requestPath(requestId, '/receipts'))}
              eventWords={receiptWords}
              expected={receiptsCalledFor(view.history)}
              alsoHeldBy="the person"
            />
          </>
        )}
      </Loaded>
    </>
  );
}

function Summary({ view }: { readonly view: RequestView }) {
  const r = view.detail.request;
  return (
    <>
      <h1 className="request-title">
        {view.detail.manifestName} to {r.recipientEmail}
      </h1>
      <dl className="facts">
        <dt>State</dt>
        <dd>{orgState(r.state)}</dd>
        <dt>Sent</dt>
        <dd>{when(r.createdAt)}</dd>
        {r.state === 'pending' && (
          <>
            <dt>The invitation ends</dt>
            <dd>{day(r.invitationExpiresAt)}</dd>
          </>
        )}
        <dt>Manifest version</dt>
        <dd>{r.manifestVersion}</dd>
      </dl>
    </>
  );
}

import { useState } from 'react';
import { Loaded, Outcome, useAction, useLoad, type Action } from '../../actions';
import { graphql, Refused } from '../../api';
import { ConsentReceipts, receiptsCalledFor, type ReceiptsFile } from '../../consent/consent-receipts';
import { ConsentSummary } from '../../consent/consent-summary';
import { HISTORY_FIELDS, type HistoryEntry } from '../../history';
import { Shell } from '../../layout';
import { Link } from '../../navigation';
import { day, plainState } from '../../words';
import { ConnectionActions } from './request/connection-actions';
import { receiptWords, toldOf } from './request/history-words';
import { isLive, REQUEST_FIELDS, wasAccepted, type PersonRequest, type RequestItem } from './request/person-data';
import { SlotAnswer } from './request/slot-answer';
import { DONE, sendVerb, share, withdraw, type Verb } from './request/verbs';
import { VAULT_FIELDS, vaultOf, type Vault } from './request/vault-records';
import { WhoHoldsWhat } from './request/who-holds-what';

type Detail = {
  readonly request: PersonRequest;
  readonly vault: Vault;
  readonly history: readonly HistoryEntry[];
};

const DETAIL = `query($r: ID!) { user {
  requests { ${REQUEST_FIELDS} }
  ${VAULT_FIELDS}
  requestHistory(requestId: $r) { ${HISTORY_FIELDS} } } }`;

async function detailOf(requestId: string): Promise<Detail> {
  type Answer = Omit<Vault, 'builtInNames'> & { requests: PersonRequest[]; requestHistory: HistoryEntry[] };
  const { user } = await graphql<{ user: Answer }>(DETAIL, { r: requestId });
  const request = user.requests.find((r) => r.requestId === requestId);
  if (!request) throw new Refused(404, 'not_found', 'There is no such request among yours.');
  return { request, vault: await vaultOf(user), history: user.requestHistory };
}

const RECEIPTS = `query($r: ID!) { user { consentReceipts(requestId: $r) {
  issuer requestId receipts { seq receiptId issuedAt event status jws } } } }`;

/** The request's signed consent receipts (contract §14), the same the organization gets. */
const receiptsOf = async (requestId: string): Promise<ReceiptsFile> =>
  (await graphql<{ user: { consentReceipts: ReceiptsFile } }>(RECEIPTS, { r: requestId })).user.consentReceipts;

/** The records chosen per slot (slotId → resource ids), not yet shared. */
type Choices = Readonly<Record<string, readonly string[]>>;

/** The request answered for an app's authorization (contract §13): its name, and the way back to it. */
export type ThroughApp = {
  readonly app: string;
  /** Goes back to the app, which then holds a grant naming this request. */
  readonly onContinue: () => Promise<unknown>;
  /** Goes back to the app with access_denied. */
  readonly onDeny: () => Promise<unknown>;
};

/**
 * Contract §11 /requests/{requestId}: which organization asks, why and for how long; each slot in
 * words with the person's choice of what to share; the request's verbs; who holds what; and the signed
 * consent receipts (§14). Through
 * an app's authorization (§13, /oauth/interaction/{uid}) the same page ends with the way back to it.
 */
export function RequestDetail({ requestId, through }: { readonly requestId: string; readonly through?: ThroughApp }) {
  const [load, reload] = useLoad(() => detailOf(requestId));
  const [chosen, setChosen] = useState<Choices>({});
  // A refusal is announced as an alert, what went through as a status.
  const action = useAction();

  /** Runs one call, then shows the request as it now stands, refused or not; `clears`: the slots it answered. */
  const act = (call: () => Promise<unknown>, done: string, clears: readonly string[]) =>
    void action.run(async () => {
      try {
        await call();
      } finally {
        await reload();
      }
      setChosen((c) => Object.fromEntries(Object.entries(c).filter(([slotId]) => !clears.includes(slotId))));
      return done;
    });
  const refuse = (message: string) => void action.run(() => Promise.reject(new Refused(400, 'invalid_request', message)));

  /** A record just added for a slot: the vault is read again and the record joins the slot's choice (replaces it, for one). */
  const added = async (slot: RequestItem, resourceId: string) => {
    await action.run(async () => {
      await reload();
      setChosen((c) => ({ ...c, [slot.slotId]: slot.multiple ? [...(c[slot.slotId] ?? []), resourceId] : [resourceId] }));
      return `Added to your vault and chosen for ${slot.label}.`;
    });
  };

  const answering = (detail: Detail): Answering => {
    const org = detail.request.organizationName;
    const grants = Object.entries(chosen)
      .filter(([, ids]) => ids.length > 0)
      .map(([slotId, resourceIds]) => ({ slotId, resourceIds }));
    return {
      chosen,
      busy: action.busy,
      choose: (slot, resourceIds) => setChosen((c) => ({ ...c, [slot.slotId]: resourceIds })),
      added,
      verb: (verb) => act(() => sendVerb(requestId, verb, grants), DONE[verb](org), verb === 'accept' ? Object.keys(chosen) : []),
      share: (slot) => {
        const resourceIds = chosen[slot.slotId] ?? [];
        if (resourceIds.length === 0) refuse(`Choose what to share as ${slot.label} first.`);
        else act(() => share(requestId, { slotId: slot.slotId, resourceIds }), `You now share ${slot.label}.`, [slot.slotId]);
      },
      withdraw: (slot) => act(() => withdraw(requestId, slot.slotId), `You withdrew ${slot.label}.`, []),
    };
  };

  return (
    <Shell>
      {through ? (
        <p>
          <strong>{through.app}</strong> sent you here to ask for your data.
        </p>
      ) : (
        <p>
          <Link to="/requests">All your requests</Link>
        </p>
      )}
      <Loaded load={load}>
        {(detail) => (
          <>
            <RequestHeading request={detail.request} accepted={wasAccepted(detail.request, detail.history)} />
            <Outcome action={action} />
            <Consent detail={detail} answering={answering(detail)} />
            {through && <BackToApp through={through} active={detail.request.state === 'active'} busy={action.busy} run={action.run} />}
            <WhoHoldsWhat
              organizationId={detail.request.organizationId}
              organization={detail.request.organizationName}
              told={toldOf(detail.request, detail.vault, detail.history)}
            />
            <ConsentReceipts
              requestId={requestId}
              read={() => receiptsOf(requestId)}
              eventWords={receiptWords}
              expected={receiptsCalledFor(detail.history)}
              alsoHeldBy={detail.request.organizationName}
            />
          </>
        )}
      </Loaded>
    </Shell>
  );
}

/** §13: once the person shares, back to the app; or back with nothing. */
function BackToApp({
  through,
  active,
  busy,
  run,
}: {
  readonly through: ThroughApp;
  readonly active: boolean;
  readonly busy: boolean;
  readonly run: Action['run'];
}) {
  return (
    <section aria-labelledby="back-to-app">
      <h2 id="back-to-app">Back to {through.app}</h2>
      <p>{active ? `${through.app} can read what you share, until you revoke it.` : `Accept the request to continue to ${through.app}.`}</p>
      <button type="button" disabled={!active || busy} onClick={() => void run(through.onContinue)}>
        Continue to {through.app}
      </button>{' '}
      <button type="button" disabled={busy} onClick={() => void run(through.onDeny)}>
        Don’t share with {through.app}
      </button>
    </section>
  );
}

function RequestHeading({ request, accepted }: { readonly request: PersonRequest; readonly accepted: boolean }) {
  return (
    <>
      <h1>
        {request.organizationName}: {request.manifestName}
      </h1>
      <p>
        <strong>{plainState(request.state, accepted)}</strong>
        <span className="meta">
          {' '}
          · asked {day(request.createdAt)}
          {request.state === 'pending' && request.invitationExpiresAt ? ` · answer by ${day(request.invitationExpiresAt)}` : ''}
        </span>
      </p>
    </>
  );
}

/** What the person does on the page: choose records per slot, add one, share or withdraw a slot, send a verb. */
type Answering = {
  readonly chosen: Choices;
  readonly busy: boolean;
  readonly choose: (slot: RequestItem, resourceIds: readonly string[]) => void;
  readonly added: (slot: RequestItem, resourceId: string) => Promise<void>;
  readonly verb: (verb: Verb) => void;
  readonly share: (slot: RequestItem) => void;
  readonly withdraw: (slot: RequestItem) => void;
};

/** The consent summary's heading and first line: an invitation asks, a connection was agreed to, an ended one asked. */
const headingOf = (r: PersonRequest): string =>
  r.state === 'pending'
    ? `What ${r.organizationName} asks for`
    : isLive(r.state)
      ? 'What you agreed to'
      : `What ${r.organizationName} asked for`;
const leadOf = (r: PersonRequest): string | undefined =>
  r.state === 'pending'
    ? undefined
    : isLive(r.state)
      ? `You agreed to share with ${r.organizationName}:`
      : `${r.organizationName} asked you to share:`;

/** What is asked, each slot with the person's answer under it, and the request's verbs. */
function Consent({ detail: { request, vault }, answering: a }: { readonly detail: Detail; readonly answering: Answering }) {
  return (
    <>
      <h2>{headingOf(request)}</h2>
      <ConsentSummary
        organizationName={request.organizationName}
        purpose={request.purpose}
        retention={request.retention}
        slots={request.items}
        lead={leadOf(request)}
        renderSlot={(item) => (
          <SlotAnswer
            slot={item}
            state={request.state}
            vault={vault}
            chosen={a.chosen[item.slotId] ?? []}
            onChoose={(ids) => a.choose(item, ids)}
            onAdded={(id) => a.added(item, id)}
            onShare={() => a.share(item)}
            onWithdraw={() => a.withdraw(item)}
            busy={a.busy}
          />
        )}
      />
      <ConnectionActions organization={request.organizationName} state={request.state} busy={a.busy} onVerb={a.verb} />
    </>
  );
}

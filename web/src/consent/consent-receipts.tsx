import type { ReceiptEventType, Schemas } from '@dss/sdk';
import { useEffect, useRef } from 'react';
import { Failure, Loaded, useAction, useLoad } from '../actions';
import { saveBlob } from '../api';
import { consentStatusWords, when } from '../words';

/** One receipt as user.consentReceipts and GET /org/v1/requests/{requestId}/receipts answer it. */
export type ConsentReceipt = Omit<Schemas['ConsentReceipt'], 'event'> & { readonly event: string };

/** Every receipt of a request with its issuer: what the pages download and `dss receipts verify` takes (docs/receipts.md). */
export type ReceiptsFile = { readonly issuer: string; readonly requestId: string; readonly receipts: readonly ConsentReceipt[] };

/**
 * The request events that issue a receipt (docs/receipts.md), to tell from the history how many there
 * should be: every one of the SDK's ReceiptEventType, so a type added there and not here fails to compile.
 */
const RECEIPTED: Readonly<Record<ReceiptEventType, true>> = {
  RequestAccepted: true,
  SlotGranted: true,
  SlotWithdrawn: true,
  RequestSuspended: true,
  RequestResumed: true,
  RequestRevoked: true,
  RequestRejected: true,
  AppAuthorized: true,
};

/** How many receipts a request's history calls for: one per consent transition in it. */
export const receiptsCalledFor = (history: readonly { readonly type: string }[]): number =>
  history.filter((e) => Object.hasOwn(RECEIPTED, e.type)).length;

/** The reactor issues a receipt a moment after its transition: the section reads again this often, this many times. */
const RETRY_MS = 1000;
const RETRIES = 20;

/** The file's JSON, its fields in one order whichever side read it: both sides download the same bytes. */
function fileText({ issuer, requestId, receipts }: ReceiptsFile): string {
  const lines = receipts.map(({ seq, receiptId, issuedAt, event, status, jws }) => ({ seq, receiptId, issuedAt, event, status, jws }));
  return `${JSON.stringify({ issuer, requestId, receipts: lines }, null, 2)}\n`;
}

type Props = {
  readonly requestId: string;
  /** Reads the request's receipts: the person through GraphQL, a member through the organization plane. */
  readonly read: () => Promise<ReceiptsFile>;
  /** What caused a receipt, in the reader's words ("You accepted", "The person accepted"). */
  readonly eventWords: (event: string) => string;
  /** Receipts the page's history calls for: while fewer are issued, the section reads them again. */
  readonly expected: number;
  /** Who else holds the same receipts, for the section's first line. */
  readonly alsoHeldBy: string;
};

/**
 * Contract §14 on a request's page: its signed consent receipts, oldest first, one line each (its
 * place in the chain, when, what caused it, the consent's state after it), and the file to keep,
 * which anyone can check offline against the service's published keys.
 */
export function ConsentReceipts({ requestId, read, eventWords, expected, alsoHeldBy }: Props) {
  const [load, reload] = useLoad(read);
  const shown = load.kind === 'ready' ? load.value.receipts.length : null;
  const tries = useRef({ expected, count: 0 });
  useEffect(() => {
    if (shown === null || shown >= expected) return undefined;
    if (tries.current.expected !== expected) tries.current = { expected, count: 0 };
    if (tries.current.count++ >= RETRIES) return undefined;
    const timer = setTimeout(() => void reload(), RETRY_MS);
    return () => clearTimeout(timer);
  }, [load, shown, expected, reload]);
  const { busy, error, run } = useAction();
  // Read afresh, so the file holds every receipt issued by now; the list then shows the same.
  const download = () =>
    run(async () => {
      const file = await read();
      saveBlob({ blob: new Blob([fileText(file)], { type: 'application/json' }), name: `consent-receipts-${requestId}.json` });
      if (file.receipts.length !== shown) await reload();
    });
  return (
    <section className="consent-receipts" aria-labelledby="consent-receipts">
      <h2 id="consent-receipts">Consent receipts</h2>
      <p className="note">The service signs a receipt of each consent change; {alsoHeldBy} gets the same ones.</p>
      <Loaded load={load} loading="Loading the receipts…">
        {(file) =>
          file.receipts.length === 0 ? (
            <p className="note">No receipts yet: one is issued with each consent change.</p>
          ) : (
            <>
              <ol className="receipts" aria-labelledby="consent-receipts">
                {file.receipts.map((r) => (
                  <li key={r.receiptId}>
                    {r.seq} · <time dateTime={r.issuedAt}>{when(r.issuedAt)}</time> · <strong>{eventWords(r.event)}</strong> ·{' '}
                    {consentStatusWords(r.status)}
                  </li>
                ))}
              </ol>
              <p className="note">
                Download them to keep: anyone can check them offline, without this service, with <code>dss receipts verify</code>.
              </p>
              <div className="actions">
                <button type="button" className="secondary" disabled={busy} onClick={() => void download()}>
                  Download receipts
                </button>
              </div>
              <Failure error={error} />
            </>
          )
        }
      </Loaded>
      <div aria-live="polite">
        {shown !== null && shown < expected && <p className="note">The receipt of the latest change is on its way.</p>}
      </div>
    </section>
  );
}

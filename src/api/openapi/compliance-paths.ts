import * as example from './examples.js';
import {
  APPENDS,
  arrayOf,
  asMember,
  asUser,
  exactly,
  jsonAnswer,
  limitQuery,
  memberErrors,
  pathParam,
  problems,
  queryParam,
  ref,
  tagged,
  uuid,
} from './components.js';

const requestId = pathParam('requestId', 'A request of the token’s organization', uuid());

/**
 * Contract §9: a request's audit history, deleting a kept copy (crypto-shredded) and the person's
 * export. Kept apart from the other groups because they were specified last; document.ts includes them.
 */
export const compliancePaths = tagged('Audit and erasure', {
  '/org/v1/requests/{requestId}/history': {
    get: {
      operationId: 'getRequestHistory',
      summary: 'The request’s audit history, read from the log, a page at a time',
      security: asMember('request_read'),
      parameters: [requestId, queryParam('after', 'Where the previous page ended: its nextAfter, an entry’s position'), limitQuery(500)],
      responses: {
        '200': jsonAnswer(
          'A page of its entries, oldest first',
          exactly({
            history: arrayOf(ref('HistoryEntry')),
            nextAfter: { type: ['string', 'null'], description: 'The next page’s `after`; null on the last page' },
          }),
          { history: [example.historyEntry], nextAfter: null },
        ),
        ...memberErrors(),
      },
    },
  },
  '/org/v1/requests/{requestId}/receipts': {
    get: {
      operationId: 'getConsentReceipts',
      summary: 'The request’s signed consent receipts, oldest first: one per consent transition, chained (contract §14)',
      description:
        'The same receipts the person reads with user.consentReceipts. Each `jws` is a compact JWS (typ consent-receipt+jwt) ' +
        'verified with the keys at /.well-known/jwks.json; docs/receipts.md has the payload and the checks. This answer, saved, ' +
        'is what `dss receipts verify` and the SDK’s verifyReceipts take.',
      security: asMember('request_read'),
      parameters: [requestId],
      responses: {
        '200': jsonAnswer(
          'Every receipt of the request',
          exactly({ issuer: { type: 'string', format: 'uri' }, requestId: uuid(), receipts: arrayOf(ref('ConsentReceipt')) }),
          { issuer: 'https://share.example.com', requestId: example.ids.requestId, receipts: [example.consentReceipt] },
        ),
        ...memberErrors(),
      },
    },
  },
  '/org/v1/requests/{requestId}/copies/{adoptionId}': {
    delete: {
      operationId: 'deleteCopy',
      summary: 'Delete a kept copy: its chain’s own key is erased, so no copy of it can be read again',
      security: asMember('request_manage'),
      parameters: [requestId, pathParam('adoptionId', 'A kept copy of the request', uuid())],
      responses: {
        '200': jsonAnswer('Shredded; the deletion stays in the history, and a second call is 404', exactly({ deleted: { const: true } }), {
          deleted: true,
        }),
        ...memberErrors(409, 423, ...APPENDS),
      },
    },
  },
  '/vault/export': {
    get: {
      operationId: 'exportVault',
      summary: 'The caller’s archive as JSON lines, to a user token or a one-time link from user.export',
      security: [...asUser, {}],
      parameters: [queryParam('link', 'A one-time export link, standing in for the token')],
      responses: {
        '200': {
          description: 'One JSON object a line, the last an `end` line; a cut archive has none',
          content: { 'application/x-ndjson': { schema: { type: 'string' }, example: '{"kind":"user","userId":"…"}\n{"kind":"end"}\n' } },
        },
        ...problems(401, 403),
      },
    },
  },
});

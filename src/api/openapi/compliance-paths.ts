import { asMember, asUser, jsonAnswer, limitQuery, memberErrors, object, pathParam, problems, queryParam } from './components.js';

const requestId = pathParam('requestId', 'A request of the token’s organization');

/**
 * Contract §9: a request's audit history, deleting a kept copy (crypto-shredded) and the person's
 * export. Kept apart from the other groups because they were specified last; document.ts includes them.
 */
export const compliancePaths = {
  '/org/v1/requests/{requestId}/history': {
    get: {
      summary: 'The request’s audit history, read from the log, a page at a time',
      security: asMember('request_read'),
      parameters: [requestId, queryParam('after', 'Where the previous page ended: its nextAfter, an entry’s position'), limitQuery(500)],
      responses: {
        '200': jsonAnswer(
          'A page of its entries, oldest first',
          object({
            history: { type: 'array', items: { $ref: '#/components/schemas/HistoryEntry' } },
            nextAfter: { type: ['string', 'null'], description: 'The next page’s `after`; null on the last page' },
          }),
        ),
        ...memberErrors(400),
      },
    },
  },
  '/org/v1/requests/{requestId}/copies/{adoptionId}': {
    delete: {
      summary: 'Delete a kept copy: its chain’s own key is erased, so no copy of it can be read again',
      security: asMember('request_manage'),
      parameters: [requestId, pathParam('adoptionId', 'A kept copy of the request')],
      responses: {
        '200': jsonAnswer('Shredded; the deletion stays in the history, and a second call is 404', object({ deleted: { const: true } })),
        ...memberErrors(409, 423, 503),
      },
    },
  },
  '/vault/export': {
    get: {
      summary: 'The caller’s archive as JSON lines, to a user token or a one-time link from user.export',
      security: [...asUser, {}],
      parameters: [queryParam('link', 'A one-time export link, standing in for the token')],
      responses: {
        '200': {
          description: 'One JSON object a line, the last an `end` line; a cut archive has none',
          content: { 'application/x-ndjson': { schema: { type: 'string' } } },
        },
        ...problems(401, 403, 503),
      },
    },
  },
};

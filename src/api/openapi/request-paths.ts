import { REQUEST_STATES } from '../../requests/request-status.js';
import {
  asMember,
  bytesRequest,
  fileNameQuery,
  JSON_ERRORS,
  jsonAnswer,
  jsonRequest,
  limitQuery,
  memberErrors,
  object,
  pathParam,
  queryParam,
  text,
  type OpenApiObject,
} from './components.js';

const requestId = pathParam('requestId', 'A request of the token’s organization');
const slotId = pathParam('slotId', 'A slot of the request’s manifest version');
const adoptionId = pathParam('adoptionId', 'A kept copy of the request');
const proposalId = pathParam('proposalId', 'A proposal on the request');
const aState = `(${REQUEST_STATES.join('|')})`;
/** R-REQ-32: any of the states a member sees, comma-separated. */
const stateQuery = queryParam(
  'state',
  `Only the requests in one of these states as each reads now, comma-separated: ${REQUEST_STATES.join(', ')}`,
  {
    type: 'string',
    pattern: `^${aState}(,${aState})*$`,
  },
);
const attachment = {
  description: 'The bytes, as an attachment',
  content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
};
const proposalStep = (summary: string, ok: OpenApiObject, ...errors: readonly number[]) => ({
  post: {
    summary,
    security: asMember('request_manage'),
    parameters: [requestId, proposalId],
    responses: { '200': ok, ...memberErrors(...errors) },
  },
});

/** Requests, kept copies and proposals (R-REQ-*, R-KEEP-*, R-COPY-*, R-PROP-*). */
export const requestPaths = {
  '/org/v1/requests': {
    get: {
      summary: 'The requests, newest first, a page at a time; optionally to one address, in some states',
      security: asMember('request_read'),
      parameters: [
        queryParam('email', 'Only the requests to this address'),
        stateQuery,
        limitQuery(100),
        queryParam('cursor', 'Where the previous page ended: its nextCursor, as it was given'),
      ],
      responses: {
        '200': jsonAnswer(
          'A page of requests',
          object({
            requests: { type: 'array' },
            nextCursor: { type: ['string', 'null'], description: 'The next page’s cursor; null on the last page' },
          }),
        ),
        ...memberErrors(400),
      },
    },
    post: {
      summary: 'Send a request',
      security: asMember('request_manage'),
      requestBody: jsonRequest(
        object(
          {
            manifestId: text(100),
            recipientEmail: text(320),
            invitationExpiresAt: { type: ['string', 'null'], format: 'date-time', description: 'With its offset' },
          },
          ['manifestId', 'recipientEmail'],
        ),
      ),
      responses: {
        '201': jsonAnswer('Sent', object({ request: { type: 'object' } })),
        ...memberErrors(...JSON_ERRORS, 409, 423, 429, 503),
      },
    },
  },
  '/org/v1/requests/{requestId}': {
    get: {
      summary: 'A request in detail',
      security: asMember('request_read'),
      parameters: [requestId],
      responses: {
        '200': jsonAnswer(
          'The request and what it holds',
          object({
            request: { type: 'object' },
            manifestName: { type: 'string' },
            items: { type: 'array' },
            adoptions: { type: 'array' },
            proposals: { type: 'array' },
          }),
        ),
        ...memberErrors(),
      },
    },
  },
  '/org/v1/requests/{requestId}/cancel': {
    post: {
      summary: 'Cancel a request',
      security: asMember('request_manage'),
      parameters: [requestId],
      responses: { '200': jsonAnswer('Cancelled', object({ request: { type: 'object' } })), ...memberErrors(409, 503) },
    },
  },
  '/org/v1/requests/{requestId}/slots/{slotId}/adopt': {
    post: {
      summary: 'Keep a copy of what a participant shared in a slot',
      security: asMember('request_manage'),
      parameters: [requestId, slotId],
      requestBody: { ...jsonRequest(object({ participant: { type: ['string', 'null'], maxLength: 100 } }, [])), required: false },
      responses: {
        '200': jsonAnswer('What was kept and skipped', object({ adoptions: { type: 'array' }, skipped: { type: 'array' } })),
        ...memberErrors(...JSON_ERRORS, 503),
      },
    },
  },
  '/org/v1/requests/{requestId}/slots/{slotId}/correct': {
    post: {
      summary: 'Correct a kept copy (optimistic: both versions expected)',
      security: asMember('request_manage'),
      parameters: [requestId, slotId],
      requestBody: jsonRequest(
        object(
          {
            sourceResourceId: { type: ['string', 'null'], maxLength: 100 },
            expectedSourceVersion: { type: 'integer', minimum: 1 },
            expectedOrgVersion: { type: 'integer', minimum: 1 },
            data: { type: 'object' },
          },
          ['expectedSourceVersion', 'expectedOrgVersion', 'data'],
        ),
      ),
      responses: {
        '200': jsonAnswer(
          'The adoption the head follows and the new head',
          object({ adoption: { type: 'object' }, orgVersion: { type: 'integer' } }),
        ),
        ...memberErrors(...JSON_ERRORS, 409, 423, 503),
      },
    },
  },
  '/org/v1/requests/{requestId}/adoptions/drain': {
    post: {
      summary: 'Keep every pending copy',
      security: asMember('request_manage'),
      parameters: [requestId],
      responses: {
        '200': jsonAnswer(
          'What was kept and what waits for a warm key',
          object({ materialized: { type: 'integer' }, stillPending: { type: 'integer' } }),
        ),
        ...memberErrors(503),
      },
    },
  },
  '/org/v1/requests/{requestId}/copies': {
    get: {
      summary: 'The kept copies',
      security: asMember('request_manage'),
      parameters: [requestId],
      responses: { '200': jsonAnswer('The materialized copies, opened', object({ copies: { type: 'array' } })), ...memberErrors(423) },
    },
  },
  '/org/v1/requests/{requestId}/copies/{adoptionId}/download': {
    get: {
      summary: 'Download a kept file',
      security: asMember('request_manage'),
      parameters: [requestId, adoptionId],
      responses: { '200': attachment, ...memberErrors(400, 423) },
    },
  },
  '/org/v1/requests/{requestId}/files': {
    get: {
      summary: 'The files attached to the request',
      security: asMember('request_manage'),
      parameters: [requestId],
      responses: { '200': jsonAnswer('Kept files and attachments, head first', object({ files: { type: 'array' } })), ...memberErrors() },
    },
    post: {
      summary: 'Attach a file (raw bytes, streamed)',
      security: asMember('request_manage'),
      parameters: [requestId, fileNameQuery],
      requestBody: bytesRequest,
      responses: {
        '201': jsonAnswer('The attachment', object({ orgFileId: { type: 'string' }, orgVersion: { const: 1 } })),
        ...memberErrors(400, 409, 413, 415, 423, 429, 503),
      },
    },
  },
  '/org/v1/requests/{requestId}/proposals': {
    get: {
      summary: 'The proposals',
      security: asMember('request_manage'),
      parameters: [requestId],
      responses: { '200': jsonAnswer('The open proposals', object({ proposals: { type: 'array' } })), ...memberErrors() },
    },
  },
  '/org/v1/requests/{requestId}/proposals/{proposalId}/candidate': {
    get: {
      summary: 'A proposal’s candidate copy',
      security: asMember('request_manage'),
      parameters: [requestId, proposalId],
      responses: {
        '200': jsonAnswer(
          'The proposed version',
          object({
            proposal: { type: 'object' },
            version: { type: 'integer' },
            name: { type: 'string' },
            schemaRef: { type: 'string' },
            data: { type: 'object' },
          }),
        ),
        ...memberErrors(423, 503),
      },
    },
  },
  '/org/v1/requests/{requestId}/proposals/{proposalId}/adopt': proposalStep(
    'Adopt a proposal',
    jsonAnswer('The Adoption it produced'),
    409,
    423,
    503,
  ),
  '/org/v1/requests/{requestId}/proposals/{proposalId}/dismiss': proposalStep(
    'Dismiss a proposal',
    jsonAnswer('Whether an open proposal was closed', object({ dismissed: { type: 'boolean' } })),
    503,
  ),
};

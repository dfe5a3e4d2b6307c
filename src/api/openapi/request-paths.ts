import { REQUEST_STATES } from '../../requests/request-status.js';
import * as example from './examples.js';
import {
  APPENDS,
  arrayOf,
  asMember,
  bytesRequest,
  exactly,
  fileNameQuery,
  freeObject,
  JSON_ERRORS,
  jsonAnswer,
  jsonRequest,
  limitQuery,
  memberErrors,
  object,
  pathParam,
  queryParam,
  ref,
  tagged,
  text,
  uuid,
} from './components.js';

const uuidParam = (name: string, description: string) => pathParam(name, description, uuid());
const requestId = uuidParam('requestId', 'A request of the token’s organization');
const slotId = uuidParam('slotId', 'A slot of the request’s manifest version');
const adoptionId = uuidParam('adoptionId', 'A kept copy of the request');
const proposalId = uuidParam('proposalId', 'A proposal on the request');
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
const withRequest = (description: string) => jsonAnswer(description, exactly({ request: ref('Request') }), { request: example.request });
const adoption = (description: string) => jsonAnswer(description, ref('Adoption'), example.adoption);

/** Requests, kept copies and proposals (R-REQ-*, R-KEEP-*, R-COPY-*, R-PROP-*). */
export const requestPaths = {
  ...tagged('Requests', {
    '/org/v1/requests': {
      get: {
        operationId: 'listRequests',
        summary: 'The requests, newest first, a page at a time; optionally to one address, in some states',
        security: asMember('request_read'),
        parameters: [
          queryParam('email', 'Only the requests to this address', { type: 'string', format: 'email' }),
          stateQuery,
          limitQuery(100),
          queryParam('cursor', 'Where the previous page ended: its nextCursor, as it was given'),
        ],
        responses: {
          '200': jsonAnswer(
            'A page of requests',
            exactly({
              requests: arrayOf(ref('Request')),
              nextCursor: { type: ['string', 'null'], description: 'The next page’s cursor; null on the last page' },
            }),
            { requests: [example.request], nextCursor: null },
          ),
          ...memberErrors('invalid_email'),
        },
      },
      post: {
        operationId: 'sendRequest',
        summary: 'Send a request',
        description: 'The newest version of the manifest is pinned; the recipient is mailed a link to the request’s page.',
        security: asMember('request_manage'),
        requestBody: jsonRequest(
          object(
            {
              manifestId: text(100, { format: 'uuid' }),
              recipientEmail: text(320, { format: 'email' }),
              invitationExpiresAt: {
                type: ['string', 'null'],
                format: 'date-time',
                description: 'With its offset; in the future, at most 90 days ahead; 14 days when absent',
              },
            },
            ['manifestId', 'recipientEmail'],
          ),
          { manifestId: example.ids.manifestId, recipientEmail: example.request.recipientEmail },
        ),
        responses: {
          '201': withRequest('Sent'),
          ...memberErrors(...JSON_ERRORS, 'invalid_email', 409, 423, 429, ...APPENDS),
        },
      },
    },
    '/org/v1/requests/{requestId}': {
      get: {
        operationId: 'getRequest',
        summary: 'A request in detail: its slots with their records, its adoptions and open proposals',
        description: 'Writes no read receipt (R-REQ-08). Compare each record’s sourceVersion with its newest adoption’s.',
        security: asMember('request_read'),
        parameters: [requestId],
        responses: {
          '200': jsonAnswer('The request and what it holds', ref('RequestDetail'), example.requestDetail),
          ...memberErrors(),
        },
      },
    },
    '/org/v1/requests/{requestId}/cancel': {
      post: {
        operationId: 'cancelRequest',
        summary: 'Cancel a request',
        security: asMember('request_manage'),
        parameters: [requestId],
        responses: { '200': withRequest('Cancelled'), ...memberErrors(409, ...APPENDS) },
      },
    },
  }),
  ...tagged('Copies', {
    '/org/v1/requests/{requestId}/slots/{slotId}/adopt': {
      post: {
        operationId: 'keep',
        summary: 'Keep a copy of what a participant shared in a slot',
        description:
          'Idempotent per source version. A record the recipient may no longer answer for is skipped with its reason; ' +
          'a keep that took nothing is 403. With a cold key the copies wait as pending (drain keeps them).',
        security: asMember('request_manage'),
        parameters: [requestId, slotId],
        requestBody: {
          ...jsonRequest(
            object({ participant: { type: ['string', 'null'], maxLength: 100, description: 'Only this party’s records (its alias)' } }, []),
            {},
          ),
          required: false,
        },
        responses: {
          '200': jsonAnswer(
            'What was kept and skipped',
            exactly({ adoptions: arrayOf(ref('Adoption')), skipped: arrayOf(ref('Skipped')) }),
            { adoptions: [example.adoption], skipped: [] },
          ),
          ...memberErrors(...JSON_ERRORS, 'participant_ineligible', 'adoption_refused', ...APPENDS),
        },
      },
    },
    '/org/v1/requests/{requestId}/slots/{slotId}/correct': {
      post: {
        operationId: 'correct',
        summary: 'Correct a kept copy (optimistic: both versions expected)',
        description:
          'Appends the organization’s own revision as the next version of the copy’s chain; the person’s data is untouched. ' +
          'A newer source version or another member’s keep or correction meanwhile is 409 version_conflict, nothing written.',
        security: asMember('request_manage'),
        parameters: [requestId, slotId],
        requestBody: jsonRequest(
          object(
            {
              sourceResourceId: {
                type: ['string', 'null'],
                format: 'uuid',
                maxLength: 100,
                description:
                  'The person’s record (the adoption’s sourceResourceId); only when the slot holds one record may it be left out',
              },
              expectedSourceVersion: { type: 'integer', minimum: 1, description: 'The newest kept adoption’s sourceVersion' },
              expectedOrgVersion: { type: 'integer', minimum: 1, description: 'The copy’s currentOrgVersion' },
              data: freeObject('the complete corrected document, validated against the copy’s own schema'),
            },
            ['expectedSourceVersion', 'expectedOrgVersion', 'data'],
          ),
          example.correction,
        ),
        responses: {
          '200': jsonAnswer(
            'The adoption the head follows and the new head',
            exactly({ adoption: ref('Adoption'), orgVersion: { type: 'integer', minimum: 1, description: 'The next expectedOrgVersion' } }),
            { adoption: example.adoption, orgVersion: 2 },
          ),
          ...memberErrors(...JSON_ERRORS, 'adoption_refused', 409, 'version_conflict', 423, ...APPENDS),
        },
      },
    },
    '/org/v1/requests/{requestId}/adoptions/drain': {
      post: {
        operationId: 'drainPending',
        summary: 'Keep every pending copy',
        security: asMember('request_manage'),
        parameters: [requestId],
        responses: {
          '200': jsonAnswer(
            'What was kept and what waits for a warm key',
            exactly({ materialized: { type: 'integer', minimum: 0 }, stillPending: { type: 'integer', minimum: 0 } }),
            { materialized: 1, stillPending: 0 },
          ),
          ...memberErrors(...APPENDS),
        },
      },
    },
    '/org/v1/requests/{requestId}/copies': {
      get: {
        operationId: 'listCopies',
        summary: 'The kept copies',
        description: 'What the organization uses today: currentData of the newest adoption per slot and per participant.',
        security: asMember('request_manage'),
        parameters: [requestId],
        responses: {
          '200': jsonAnswer('The materialized copies, opened', exactly({ copies: arrayOf(ref('Copy')) }), { copies: [example.copy] }),
          ...memberErrors(423),
        },
      },
    },
    '/org/v1/requests/{requestId}/copies/{adoptionId}/download': {
      get: {
        operationId: 'downloadCopy',
        summary: 'Download a kept file',
        security: asMember('request_manage'),
        parameters: [requestId, adoptionId],
        responses: { '200': attachment, ...memberErrors('unsupported_item', 'adoption_refused', 423) },
      },
    },
    '/org/v1/requests/{requestId}/files': {
      get: {
        operationId: 'listFiles',
        summary: 'The files attached to the request',
        security: asMember('request_manage'),
        parameters: [requestId],
        responses: {
          '200': jsonAnswer('Kept files and attachments, head first', exactly({ files: arrayOf(ref('OrgFile')) }), {
            files: [example.orgFile],
          }),
          ...memberErrors(),
        },
      },
      post: {
        operationId: 'attachFile',
        summary: 'Attach a file (raw bytes, streamed)',
        security: asMember('request_manage'),
        parameters: [requestId, fileNameQuery],
        requestBody: bytesRequest,
        responses: {
          '201': jsonAnswer('The attachment', exactly({ orgFileId: uuid(), orgVersion: { const: 1 } }), {
            orgFileId: example.ids.orgFileId,
            orgVersion: 1,
          }),
          ...memberErrors(409, 413, 415, 423, 429, ...APPENDS),
        },
      },
    },
  }),
  ...tagged('Proposals', {
    '/org/v1/requests/{requestId}/proposals': {
      get: {
        operationId: 'listProposals',
        summary: 'The open proposals',
        security: asMember('request_manage'),
        parameters: [requestId],
        responses: {
          '200': jsonAnswer('The open proposals', exactly({ proposals: arrayOf(ref('Proposal')) }), { proposals: [example.proposal] }),
          ...memberErrors(),
        },
      },
    },
    '/org/v1/requests/{requestId}/proposals/{proposalId}/candidate': {
      get: {
        operationId: 'getCandidate',
        summary: 'A proposal’s candidate copy',
        description: 'Read from the person’s vault; writes a read receipt on the person’s side (R-PROP-03).',
        security: asMember('request_manage'),
        parameters: [requestId, proposalId],
        responses: {
          '200': jsonAnswer('The proposed version', ref('Candidate'), example.candidate),
          ...memberErrors('adoption_refused', 409, 423, ...APPENDS),
        },
      },
    },
    '/org/v1/requests/{requestId}/proposals/{proposalId}/adopt': {
      post: {
        operationId: 'adoptProposal',
        summary: 'Adopt a proposal: keep its version as the next of the record’s chain',
        security: asMember('request_manage'),
        parameters: [requestId, proposalId],
        responses: { '200': adoption('The Adoption it produced'), ...memberErrors('adoption_refused', 409, 423, ...APPENDS) },
      },
    },
    '/org/v1/requests/{requestId}/proposals/{proposalId}/dismiss': {
      post: {
        operationId: 'dismissProposal',
        summary: 'Dismiss a proposal',
        security: asMember('request_manage'),
        parameters: [requestId, proposalId],
        responses: {
          '200': jsonAnswer(
            'Whether an open proposal was closed; false when another member decided it or it was superseded',
            exactly({ dismissed: { type: 'boolean' } }),
            { dismissed: true },
          ),
          ...memberErrors(...APPENDS),
        },
      },
    },
  }),
};

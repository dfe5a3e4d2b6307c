import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { EventContext } from '../../events/envelope.js';
import type { Permission } from '../../events/organization-events.js';
import type { ProposalService } from '../../proposals/proposal-service.js';
import { answer, ok, whenDone } from '../answer.js';
import { knownInput } from '../middleware/known-input.js';
import { eventContext } from '../request-context.js';
import { memberOf } from './org-access.js';
import { idsOf, routeIds } from '../id-params.js';

/** The proposal routes (R-PROP-02 to R-PROP-05): request_manage, the organization's own requests only. */
export function proposalRoutes(proposals: ProposalService, access: (p: Permission) => RequestHandler[], now: () => Date): Router {
  const router = Router();
  const context = (req: Request, res: Response): EventContext => eventContext(req, { kind: 'member', id: memberOf(res).identityId }, now());
  const request = routeIds({ requestId: 'no such request' });
  const requestProposal = routeIds({ requestId: 'no such request', proposalId: 'no such proposal' });

  router.get(
    '/org/v1/requests/:requestId/proposals',
    ...access('request_manage'),
    request,
    knownInput(),
    answer(async (req, res) => whenDone(await proposals.list(memberOf(res).organizationId, idsOf(res).requestId), ok)),
  );

  router.get(
    '/org/v1/requests/:requestId/proposals/:proposalId/candidate',
    ...access('request_manage'),
    requestProposal,
    knownInput(),
    answer(async (req, res) => {
      const { requestId, proposalId } = idsOf(res);
      return whenDone(await proposals.candidate(memberOf(res).organizationId, requestId, proposalId, context(req, res)), ok);
    }),
  );

  router.post(
    '/org/v1/requests/:requestId/proposals/:proposalId/adopt',
    ...access('request_manage'),
    requestProposal,
    knownInput(),
    answer(async (req, res) => {
      const { requestId, proposalId } = idsOf(res);
      return whenDone(await proposals.adopt(memberOf(res).organizationId, requestId, proposalId, context(req, res)), ok);
    }),
  );

  router.post(
    '/org/v1/requests/:requestId/proposals/:proposalId/dismiss',
    ...access('request_manage'),
    requestProposal,
    knownInput(),
    answer(async (req, res) => {
      const { requestId, proposalId } = idsOf(res);
      return whenDone(await proposals.dismiss(memberOf(res).organizationId, requestId, proposalId, context(req, res)), ok);
    }),
  );

  return router;
}

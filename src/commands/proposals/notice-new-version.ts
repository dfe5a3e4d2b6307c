import type { Participant } from '../../events/copy-events.js';
import type { RequestEvent } from '../../events/request-events.js';
import { evaluateState } from '../../requests/request-status.js';
import { requestDecision, type At } from '../requests/request-rules.js';
import { proposedVersion } from '../requests/request-state.js';

export type NoticeNewVersion = At & {
  /** Derived from the event that published the version: a reaction run twice names the same proposal. */
  readonly proposalId: string;
  readonly slotId: string;
  readonly resourceId: string;
  readonly newVersion: number;
  readonly participant: Participant;
};

/**
 * R-PROP-01: on an active connection a newer version opens a proposal, or supersedes the open one
 * of that slot and resource in place (one notice per granted resource). A version no newer than
 * one proposed before, open or closed since, or an inactive connection, changes nothing: so a
 * reaction run twice opens one proposal, and one run late opens none for an older version.
 */
export const noticeNewVersion = requestDecision<NoticeNewVersion>((s, cmd) => {
  if (s.phase === 'none' || proposedVersion(s, cmd.slotId, cmd.resourceId) >= cmd.newVersion) return [];
  if (evaluateState({ ...s, phase: s.phase }, cmd.now) !== 'active') return [];
  const open = [...s.open].find(([, p]) => p.slotId === cmd.slotId && p.resourceId === cmd.resourceId);
  const at = cmd.now.toISOString();
  const events: RequestEvent[] = [];
  if (open)
    events.push({ type: 'ProposalClosed', data: { requestId: s.requestId, proposalId: open[0], reason: 'superseded', closedAt: at } });
  events.push({
    type: 'ProposalOpened',
    data: {
      requestId: s.requestId,
      organizationId: s.organizationId,
      proposalId: cmd.proposalId,
      slotId: cmd.slotId,
      resourceId: cmd.resourceId,
      newVersion: cmd.newVersion,
      participant: cmd.participant,
      proposedAt: at,
    },
  });
  return events;
});

import { isRefusal } from '../refusal.js';
import { actingAs, organizationDecision } from './organization-state.js';

export type SealKey = { readonly organizationId: string; readonly actorEmail: string };

/**
 * POST /org/v1/key/seal: cold from now until a member signs in again. A key that was never
 * warmed since the last seal has nothing to end, so a repeated seal writes nothing.
 */
export const sealKey = organizationDecision<SealKey>((state, cmd) => {
  const org = actingAs(state, cmd.actorEmail, 'member_manage');
  if (isRefusal(org)) return org;
  return org.keyWarmedSinceSeal ? [{ type: 'KeySealed', data: { organizationId: org.organizationId } }] : [];
});

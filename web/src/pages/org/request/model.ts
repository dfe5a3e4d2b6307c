import type { Adoption, Copy, RequestDetail, Schemas } from '@dss/sdk';
import { Refused, type Answer, type OrgApi } from '../../../api';

/** Everything the detail page shows; copies only for a member who may manage requests (the route needs request_manage). */
export type RequestView = {
  readonly detail: RequestDetail;
  /** Null without request_manage, or while the organization's key is sealed (then `sealed`). */
  readonly copies: readonly Copy[] | null;
  /** The copies route answered 423: the key is cold until a member signs in again (R-WEB-10). */
  readonly sealed: boolean;
  /** Newest first. */
  readonly history: readonly Schemas['HistoryEntry'][];
};

/** Reads the request again and shows it: its new view, or undefined when that failed (the page then says why). */
export type Reload = () => Promise<RequestView | undefined>;

export const requestPath = (requestId: string, rest = '') => `/org/v1/requests/${encodeURIComponent(requestId)}${rest}`;

/** The whole audit history, page after page (§10.6, oldest first as served), turned newest first. */
async function historyOf(api: OrgApi, requestId: string): Promise<Schemas['HistoryEntry'][]> {
  const entries: Schemas['HistoryEntry'][] = [];
  let after: string | null = null;
  do {
    const query: string = after === null ? '' : `?after=${encodeURIComponent(after)}`;
    const page = await api.get<Answer<'get', '/org/v1/requests/{requestId}/history'>>(requestPath(requestId, `/history${query}`));
    entries.push(...page.history);
    after = page.nextAfter;
  } while (after !== null);
  return entries.reverse();
}

/** The kept copies opened, 'sealed' while the organization's key is cold (423): the rest of the request still reads. */
const copiesOf = (api: OrgApi, requestId: string): Promise<readonly Copy[] | 'sealed'> =>
  api.get<Answer<'get', '/org/v1/requests/{requestId}/copies'>>(requestPath(requestId, '/copies')).then(
    (c) => c.copies,
    (e: unknown) => {
      if (e instanceof Refused && e.status === 423) return 'sealed' as const;
      throw e;
    },
  );

export async function readRequest(api: OrgApi, requestId: string, manages: boolean): Promise<RequestView> {
  const [detail, copies, history] = await Promise.all([
    api.get<RequestDetail>(requestPath(requestId)),
    manages ? copiesOf(api, requestId) : Promise.resolve(null),
    historyOf(api, requestId),
  ]);
  return copies === 'sealed' ? { detail, copies: null, sealed: true, history } : { detail, copies, sealed: false, history };
}

/** One chain of copies: a record of one slot (and participant) under the request, kept version after version. */
export type Chain = Readonly<Pick<Adoption, 'slotId' | 'sourceResourceId' | 'participant'>> & {
  readonly orgResourceId: string;
  /** Its kept versions, oldest first: the last is the newest keep, whose head is what the organization uses today. */
  readonly copies: readonly Copy[];
};

/** The copies route's entries grouped by chain (spec §2.6, chain rules). */
export function chainsOf(copies: readonly Copy[]): Chain[] {
  const chains = new Map<string, Copy[]>();
  for (const copy of copies) {
    const list = chains.get(copy.resourceId) ?? [];
    list.push(copy);
    chains.set(copy.resourceId, list);
  }
  return [...chains.entries()].map(([orgResourceId, list]) => {
    const sorted = list.sort((a, b) => a.orgVersion - b.orgVersion);
    const first = sorted[0]!.adoption;
    return {
      slotId: first.slotId,
      sourceResourceId: first.sourceResourceId,
      orgResourceId,
      participant: first.participant,
      copies: sorted,
    };
  });
}

/** The newest keep of a chain, whose head the correct route addresses. */
export const newestOf = (chain: Chain): Copy => chain.copies.at(-1)!;

/** A slot's record named as the member reads it: the slot's label, and the party when it is not the recipient. */
export const recordName = (label: string, participant: Schemas['Participant']): string =>
  participant === null ? label : `${label} for ${participant.alias}`;

/** Whose record it is: the recipient's own, or the party its alias names. */
export const partyWords = (participant: Schemas['Participant']): string =>
  participant === null ? 'The person’s own record' : `For ${participant.alias}`;

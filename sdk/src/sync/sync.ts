import type { Adoption, Copy, Organization, RequestDetail } from '../client.js';
import { DssProblem } from '../problem.js';
import { EMPTY_STATE, type Decide, type Held, type Intent, type RequestView, type SyncState, type SyncStore } from './state.js';

export type SyncOptions = {
  readonly store: SyncStore;
  /** Decides each open proposal; by default every newer version is kept ("keep new versions on manual slots"). */
  readonly decide?: Decide;
  /** Told of each step, for a progress display. */
  readonly onProgress?: (step: SyncStep) => void;
};

export type SyncStep =
  | { readonly phase: 'feed'; readonly events: number; readonly dirty: number }
  | { readonly phase: 'request'; readonly requestId: string; readonly done: number; readonly of: number }
  | { readonly phase: 'kept'; readonly requestId: string; readonly adoptions: readonly Adoption[] }
  | {
      readonly phase: 'decided';
      readonly requestId: string;
      readonly proposalId: string;
      readonly decision: 'adopt' | 'dismiss' | 'later';
    };

export type SyncResult = {
  /** Copies this run kept: new versions only (a keep repeated after a crash is not counted again). */
  readonly kept: number;
  readonly adopted: number;
  readonly dismissed: number;
  /** The cursor stored: a later sync reads the feed from here. */
  readonly cursor: string | null;
  /** What the organization uses today, per request. */
  readonly view: SyncState['view'];
};

const key = (requestId: string, resourceId: string) => `${requestId}/${resourceId}`;

/**
 * The spec's sync procedure (§4.3) as a resumable state machine (docs/sdk.md): read the events feed
 * from the stored cursor and mark the requests it names; for each, keep new versions on manual slots
 * and note what was skipped, decide open proposals by `decide`, and read the copies into the view of
 * what the organization uses today. The state is saved after every step, and every step is safe to do
 * again (keeps are idempotent per version; a decision is written down before it is sent), so a run
 * killed at any point and started again finishes the work without doing anything twice.
 */
export async function sync(organization: Organization, options: SyncOptions): Promise<SyncResult> {
  let state: SyncState = (await options.store.load()) ?? EMPTY_STATE;
  const counts = { kept: 0, adopted: 0, dismissed: 0 };
  const save = async (next: SyncState) => {
    await options.store.save(next);
    state = next;
  };

  // Proposals left for later are asked again; decisions a killed run took are finished first.
  if (state.later.length > 0) await save({ ...state, dirty: union(state.dirty, state.later), later: [] });
  for (const intent of state.intents) await finish(intent);

  for await (const page of organization.events({ after: state.cursor, limit: 1000 })) {
    const named = page.events.flatMap((event) => ('requestId' in event && event.requestId ? [event.requestId] : []));
    await save({ ...state, cursor: page.nextCursor ?? state.cursor, dirty: union(state.dirty, named) });
    options.onProgress?.({ phase: 'feed', events: page.events.length, dirty: state.dirty.length });
  }

  const of = state.dirty.length;
  while (state.dirty.length > 0) {
    const requestId = state.dirty[0]!;
    options.onProgress?.({ phase: 'request', requestId, done: of - state.dirty.length, of });
    const view = await reconcile(requestId);
    const { [requestId]: _, ...others } = state.view;
    await save({ ...state, dirty: state.dirty.slice(1), view: view ? { ...others, [requestId]: view } : others });
  }
  return { ...counts, cursor: state.cursor, view: state.view };

  /** One request: keeps, decisions, then the copies read into its view; undefined when it is gone. */
  async function reconcile(requestId: string): Promise<RequestView | undefined> {
    let detail: RequestDetail;
    try {
      detail = await organization.request(requestId);
    } catch (error) {
      if (error instanceof DssProblem && error.is('not_found')) return undefined;
      throw error;
    }
    const skipped = await keepNewVersions(detail);
    await decideProposals(detail);
    const after = await organization.request(requestId);
    return {
      requestId,
      state: after.request.state,
      held: held(await organization.copies(requestId)),
      skipped,
      pending: after.adoptions.filter((a) => a.state === 'pending').length,
    };
  }

  /** Keeps every (slot, party) of a manual slot whose records have a version the organization does not hold. */
  async function keepNewVersions(detail: RequestDetail): Promise<RequestView['skipped'][number][]> {
    const requestId = detail.request.requestId;
    const skipped: RequestView['skipped'][number][] = [];
    const holds = new Map<string, number>();
    for (const a of detail.adoptions)
      holds.set(`${a.slotId}/${a.sourceResourceId}`, Math.max(holds.get(`${a.slotId}/${a.sourceResourceId}`) ?? 0, a.sourceVersion));
    const proposed = new Set(detail.proposals.map((p) => p.resourceId));
    for (const item of detail.items) {
      if (item.adoption !== 'manual' || !item.verbs.includes('keep')) continue;
      const parties = new Set<string | null>();
      for (const record of item.records) {
        if (record.status !== 'available' || record.sourceVersion === undefined) continue;
        const have = holds.get(`${item.slotId}/${record.resourceId}`);
        const wanted =
          have === undefined ||
          (record.sourceVersion > have &&
            !proposed.has(record.resourceId) &&
            (state.dismissed[key(requestId, record.resourceId)] ?? 0) < record.sourceVersion);
        if (wanted) parties.add(record.participant?.alias ?? null);
      }
      for (const party of parties) {
        try {
          const answer = await organization.keep(requestId, item.slotId, party ?? undefined);
          const fresh = answer.adoptions.filter((a) => a.sourceVersion > (holds.get(`${a.slotId}/${a.sourceResourceId}`) ?? 0));
          counts.kept += fresh.length;
          for (const s of answer.skipped)
            skipped.push({ slotId: item.slotId, resourceId: s.resourceId, reason: s.reason, message: s.message });
          options.onProgress?.({ phase: 'kept', requestId, adoptions: fresh });
        } catch (error) {
          // R-KEEP-05: a keep that took nothing says why; the other slots are still kept.
          if (!(error instanceof DssProblem && (error.is('participant_ineligible') || error.is('adoption_refused')))) throw error;
          skipped.push({ slotId: item.slotId, resourceId: '', reason: error.code, message: error.detail });
        }
      }
    }
    return skipped;
  }

  async function decideProposals(detail: RequestDetail): Promise<void> {
    const requestId = detail.request.requestId;
    if (detail.proposals.length === 0) return;
    const current = held(await organization.copies(requestId));
    for (const proposal of await organization.proposals(requestId)) {
      const decision = await (options.decide ?? (() => 'adopt' as const))({
        requestId,
        proposal,
        current: current.find((h) => h.slotId === proposal.slotId && h.participant === (proposal.participant?.alias ?? null)),
        candidate: () => organization.candidate(requestId, proposal.proposalId),
      });
      options.onProgress?.({ phase: 'decided', requestId, proposalId: proposal.proposalId, decision });
      if (decision === 'later') {
        await save({ ...state, later: union(state.later, [requestId]) });
        continue;
      }
      const intent: Intent = {
        requestId,
        proposalId: proposal.proposalId,
        resourceId: proposal.resourceId,
        newVersion: proposal.newVersion,
        decision,
      };
      await save({ ...state, intents: [...state.intents, intent] });
      await finish(intent);
    }
  }

  /** Sends a decision written down before; one already decided (by this run before a kill, or by a member) is done. */
  async function finish(intent: Intent): Promise<void> {
    try {
      if (intent.decision === 'adopt') {
        await organization.adoptProposal(intent.requestId, intent.proposalId);
        counts.adopted++;
      } else if (await organization.dismissProposal(intent.requestId, intent.proposalId)) counts.dismissed++;
    } catch (error) {
      // Decided already, superseded by a newer version (asked again), or the connection ended.
      if (!(error instanceof DssProblem && (error.is('conflict') || error.is('not_found') || error.is('adoption_refused')))) throw error;
    }
    const dismissed =
      intent.decision === 'dismiss'
        ? { ...state.dismissed, [key(intent.requestId, intent.resourceId)]: intent.newVersion }
        : state.dismissed;
    await save({
      ...state,
      dismissed,
      intents: state.intents.filter((i) => i.proposalId !== intent.proposalId),
      dirty: union(state.dirty, [intent.requestId]),
    });
  }
}

/** Per slot and participant, the newest kept copy's head (spec §4.3: currentData of the newest adoption). */
export function held(copies: readonly Copy[]): Held[] {
  const newest = new Map<string, Copy>();
  for (const copy of copies) {
    const at = `${copy.adoption.slotId}/${copy.participant?.alias ?? ''}`;
    const seen = newest.get(at);
    const newer =
      !seen ||
      copy.adoption.sourceVersion > seen.adoption.sourceVersion ||
      (copy.adoption.sourceVersion === seen.adoption.sourceVersion && copy.currentOrgVersion > seen.currentOrgVersion);
    if (newer) newest.set(at, copy);
  }
  return [...newest.values()].map((copy) => ({
    slotId: copy.adoption.slotId,
    participant: copy.participant?.alias ?? null,
    resourceId: copy.adoption.sourceResourceId,
    sourceVersion: copy.adoption.sourceVersion,
    orgVersion: copy.currentOrgVersion,
    origin: copy.currentOrigin,
    data: copy.currentData ?? copy.data,
    adoptionId: copy.adoption.adoptionId,
  }));
}

/** `a` then what `b` adds, each once. */
const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])];

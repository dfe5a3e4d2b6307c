import { chainDecider } from '../commands/copies/chain-decider.js';
import { emptyChain, evolveChain } from '../commands/copies/chain-state.js';
import { isRefusal, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import { recallFolded } from '../commands/stream-folds.js';
import type { SqlExecutor } from '../db/sql.js';
import { chainStream, orgResourceIdOf } from '../events/copy-events.js';
import type { EventContext, JsonValue } from '../events/envelope.js';
import { grantOf, type RecordReader } from '../requests/request-records.js';
import { stateOf } from '../requests/request-view.js';
import type { SchemaValidator } from '../schemas/index.js';
import { unlessErased, type Seal, type VaultKeyring } from '../vaults/keyring.js';
import { correctionContext } from './copy-seal.js';
import { adoptionOfKept, type Adoption } from './copy-view.js';
import type { SlotAccess, SlotInView } from './slot-access.js';
import type { RequestId, ResourceId, SlotId } from '../ids.js';

export type CorrectDeps = CommandDeps & {
  readonly readModels: SqlExecutor;
  readonly access: SlotAccess;
  readonly records: RecordReader;
  readonly keyring: VaultKeyring;
  readonly validator: SchemaValidator;
  readonly now: () => Date;
};

export type CorrectInput = {
  readonly sourceResourceId: ResourceId | null;
  readonly expectedSourceVersion: number;
  readonly expectedOrgVersion: number;
  readonly data: JsonValue;
};

/** The records of a slot the organization holds a copy of, granted now or not (R-CONS-04: its copy stays its own to correct). */
const heldOnSlot = `SELECT DISTINCT source_resource_id::text AS source_resource_id FROM rm.adoptions
                    WHERE request_id = $1 AND slot_id = $2 AND state = 'materialized' AND deleted_at IS NULL`;

/**
 * Correcting a kept copy (R-CORR-*): gathers what the chain's decider needs (the chain, the
 * person's newest version, the gate's facts, the schema's verdict, the sealed data) and runs it.
 */
export class CopyCorrections {
  constructor(private readonly deps: CorrectDeps) {}

  async correct(
    organizationId: string,
    requestId: RequestId,
    slotId: SlotId,
    input: CorrectInput,
    context: EventContext,
  ): Promise<{ adoption: Adoption; orgVersion: number } | Refusal> {
    // The chain's key (its vault is the chain's orgResourceId) comes with the request when the record is named.
    const chainKey = input.sourceResourceId === null ? undefined : orgResourceIdOf(requestId, slotId, input.sourceResourceId);
    const found = await this.deps.access.slotIn(organizationId, requestId, slotId, chainKey);
    if (isRefusal(found)) return found;
    const { row, slot } = found;
    const sourceResourceId = input.sourceResourceId ?? (await this.onlyRecord(found));
    const facts = { keyWarm: this.deps.access.warm(row), slotKeeps: slot.verbs.includes('keep'), recordNamed: sourceResourceId !== null };
    // With no record named there is no chain to read: the decider refuses on the facts alone.
    if (sourceResourceId === null) return refused(chainDecider.decide(emptyChain, { type: 'CorrectCopy', data: { ...unnamed, ...facts } }));
    const chain = chainStream(row.request_id, slot.slotId, sourceResourceId);
    // A chain this process holds is taken from memory: the correction's append compare-and-sets
    // it, and handle takes any other answer on a read.
    const folded = await recallFolded(this.deps.store, chain, chainFold);
    // What every keep of a chain shares (its schema, a document's for good; its orgResourceId) is read from its newest keep.
    const kept = folded.state.lastKeep;
    const verdict = kept?.schemaRef ? this.deps.validator.validateWithBuiltin(kept.schemaRef, input.data) : null;
    const orgVersion = input.expectedOrgVersion + 1;
    const seal = kept ? await unlessErased(this.sealerOf(found, kept.orgResourceId)) : null;
    const plaintext = Buffer.from(JSON.stringify(input.data));
    const done = await handle(
      this.deps,
      chain,
      chainDecider,
      {
        type: 'CorrectCopy',
        data: {
          ...facts,
          expectedOrgVersion: input.expectedOrgVersion,
          expectedSourceVersion: input.expectedSourceVersion,
          newestSourceVersion: newestGranted(found, sourceResourceId),
          consent: this.deps.records.factsFor(stateOf(row, this.deps.now()), found.grants, found.standing, slot.slotId, sourceResourceId),
          invalid: verdict && !verdict.ok ? ('message' in verdict ? verdict.message : '') : null,
          now: this.deps.now(),
          sealedData: seal && kept ? seal(plaintext, correctionContext(kept.orgResourceId, orgVersion)).toString('base64') : null,
        },
      },
      { context, known: folded },
    );
    if (isRefusal(done)) return done;
    // The decider corrects only a chain with a keep: its adoption is the one that keep recorded.
    const keep = done.state.lastKeep;
    if (!keep) throw new Error('a corrected chain has no keep');
    return { adoption: adoptionOfKept(keep), orgVersion: done.state.head };
  }

  /** The chain's sealer, from its key read with the request when that was the chain's vault (else sealer()'s own read). */
  private sealerOf(found: SlotInView, vaultId: string): Promise<Seal> {
    return this.deps.keyring.keysRead(found.storedKeys ?? []).sealer(vaultId);
  }

  /** The one record of the slot, granted or held, when sourceResourceId is left out; null when there are several. */
  private async onlyRecord(found: SlotInView): Promise<string | null> {
    const held = (await this.deps.readModels.query<{ source_resource_id: string }>(heldOnSlot, [found.row.request_id, found.slot.slotId]))
      .rows;
    const records = new Set([...found.records.map((r) => r.resourceId), ...held.map((h) => h.source_resource_id)]);
    return records.size === 1 ? [...records][0]! : null;
  }
}

const chainFold = { initialState: emptyChain, evolve: evolveChain };

/**
 * The newest version the person has published of a granted record: its grant's, read with the
 * consent facts in one snapshot (0 when the slot holds no grant of it, or it no longer resolves).
 * The decider compares with it only while consent stands (R-CORR-04, R-CONS-04), and then the
 * grant resolves. Inline read models commit with the version's event; async ones hold it before
 * its publish is answered (waitFor), so whoever knows of a version finds it the newest.
 */
function newestGranted(found: SlotInView, resourceId: string): number {
  return grantOf(found.grants, found.slot.slotId, resourceId)?.version ?? 0;
}

/** The rest of a correction no record was named for: the decider refuses it on its facts before it reads any of these. */
const unnamed = {
  expectedOrgVersion: 0,
  expectedSourceVersion: 0,
  newestSourceVersion: 0,
  consent: { connection: 'active', granted: false, resolves: false, eligible: false },
  invalid: null,
  now: new Date(0),
  sealedData: null,
} as const;

function refused(decision: Refusal | readonly unknown[]): Refusal {
  if (!isRefusal(decision)) throw new Error('a correction naming no record was decided without a refusal');
  return decision;
}

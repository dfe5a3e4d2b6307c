import { createHash, randomUUID } from 'node:crypto';
import type { Caller } from '../identity/identity-service.js';
import { isUuid } from '../ids.js';
import { documentDecider } from '../commands/documents/document-decider.js';
import { vaultIndex } from '../commands/documents/vault-index.js';
import { isRefusal, refuse, refuseWith, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import { recallFolded } from '../commands/stream-folds.js';
import type { SqlExecutor } from '../db/sql.js';
import { canonicalJson } from '../events/canonical-json.js';
import { readDecoded } from '../events/decoder.js';
import type { EventContext, JsonValue } from '../events/envelope.js';
import { documentStreams as streams } from '../events/document-events.js';
import { resourceStream } from '../events/resource-events.js';
import type { SchemaValidator, ValidationResult } from '../schemas/index.js';
import { unlessErased, type VaultKeyring } from '../vaults/keyring.js';
import type { VaultAccess } from '../vaults/vault-access.js';
import { documentSql as q } from './document-queries.js';

/** DocumentInput (R-DOC-01, R-DOC-02) as GraphQL hands it over (types already checked there). */
export type DocumentInput = {
  readonly name: string;
  readonly schemaRef?: string | null;
  readonly documentSchema?: JsonValue;
  readonly description?: string | null;
  readonly uniquePerVault?: boolean | null;
  readonly data: JsonValue;
  /** A legal entity the caller manages; its vault holds the document. */
  readonly owner?: string | null;
};

export type DocumentUpdateInput = { readonly data: JsonValue; readonly name?: string | null; readonly description?: string | null };

export type DocumentView = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly owner: string | null;
  readonly schemaRef: string | null;
  readonly documentSchema: JsonValue;
  readonly version: number;
  readonly data: JsonValue;
  readonly createdAt: string;
  readonly updatedAt: string;
};

/** One published version of a document the caller read; its data is read from the log when asked (dataOf). */
export type DocumentVersionView = { readonly documentId: string; readonly version: number; readonly publishedAt: string };

export type DocumentDeps = CommandDeps & {
  readonly validator: SchemaValidator;
  readonly keyring: VaultKeyring;
  readonly readModels: SqlExecutor;
  readonly access: VaultAccess;
};

type Schema = { readonly schemaRef: string | null; readonly documentSchema: JsonValue };
type Opener = (sealed: Buffer, context: string) => Buffer;

/** Documents: create, validate, update, delete, and the documents queries (R-DOC-01 to R-DOC-11). */
export class DocumentService {
  constructor(private readonly deps: DocumentDeps) {}

  /** Rule 2's dry run: the same checks as create, nothing persisted. */
  async validate(caller: Caller, input: DocumentInput): Promise<{ valid: true } | Refusal> {
    const schema = schemaOf(input);
    if (isRefusal(schema)) return schema;
    const checked = await this.check(caller, schema, input.data);
    return checked ?? { valid: true };
  }

  async create(caller: Caller, input: DocumentInput, context: EventContext): Promise<{ id: string; version: number } | Refusal> {
    const schema = schemaOf(input);
    if (isRefusal(schema)) return schema;
    const invalid = await this.check(caller, schema, input.data);
    if (invalid) return invalid;

    const vaultId = await this.deps.access.writableVault(caller, input.owner ?? null);
    if (isRefusal(vaultId)) return vaultId;
    const resourceId = randomUUID();
    const uniquePerVault = input.uniquePerVault ?? false;
    const registered = await handle(
      this.deps,
      streams.vault(vaultId),
      vaultIndex,
      { type: 'RegisterDocument', data: { vaultId, resourceId, ...this.schemaKeys(schema), uniquePerVault } },
      { context, retries: 10 },
    );
    if (isRefusal(registered)) return registered;

    const seal = await this.deps.keyring.sealer(vaultId);
    const created = await handle(
      this.deps,
      resourceStream(resourceId),
      documentDecider,
      {
        type: 'CreateDocument',
        data: {
          resourceId,
          vaultId,
          name: input.name,
          description: input.description ?? null,
          schemaRef: schema.schemaRef,
          documentSchema: schema.documentSchema,
          uniquePerVault,
          sealedData: seal(Buffer.from(JSON.stringify(input.data)), documentSealContext(resourceId, 1)).toString('base64'),
        },
      },
      { context, newStream: true },
    );
    if (isRefusal(created)) return created;
    return { id: resourceId, version: 1 };
  }

  /**
   * Rule 4: the stored schema judges the new data; schema fields of the input are ignored. It judges
   * only the data of a caller who may change the document: the decision refuses the others first.
   */
  async update(
    caller: Caller,
    resourceId: string,
    input: DocumentUpdateInput,
    context: EventContext,
  ): Promise<{ id: string; version: number } | Refusal> {
    const found = await this.found(caller, resourceId);
    if (isRefusal(found)) return found;
    const { folded, mayChange } = found;
    const { state } = folded;
    const invalid = mayChange ? await this.check(caller, state, input.data) : null;
    if (invalid) return invalid;
    const seal = await this.deps.keyring.sealer(state.vaultId);
    const plaintext = Buffer.from(JSON.stringify(input.data));
    const updated = await handle(
      this.deps,
      resourceStream(resourceId),
      documentDecider,
      {
        type: 'UpdateDocument',
        data: {
          resourceId,
          vaultId: state.vaultId,
          mayChange,
          name: input.name ?? null,
          description: input.description,
          sealedFor: (version) => seal(plaintext, documentSealContext(resourceId, version)).toString('base64'),
        },
      },
      { context, known: folded },
    );
    if (isRefusal(updated)) return updated;
    return { id: resourceId, version: updated.state.status === 'none' ? 0 : updated.state.version };
  }

  async delete(caller: Caller, resourceId: string, context: EventContext): Promise<true | Refusal> {
    const found = await this.found(caller, resourceId);
    if (isRefusal(found)) return found;
    const { folded, mayChange } = found;
    const { state } = folded;
    const deleted = await handle(
      this.deps,
      resourceStream(resourceId),
      documentDecider,
      { type: 'DeleteDocument', data: { resourceId, vaultId: state.vaultId, mayChange } },
      { context, known: folded },
    );
    if (isRefusal(deleted)) return deleted;
    const released = await handle(
      this.deps,
      streams.vault(state.vaultId),
      vaultIndex,
      { type: 'UnregisterDocument', data: { vaultId: state.vaultId, resourceId } },
      { context, retries: 10 },
    );
    return isRefusal(released) ? released : true;
  }

  /**
   * The live document, folded, and whether the caller may change it: the fact its decision takes
   * (a caller who may only read it, a MEMBER's view of an entity's document, is refused there). One
   * the caller cannot read is not_found, whatever the reason, as an unknown id.
   *
   * The state may come from memory (recallFolded): a document's vault and schema never change, a
   * deletion is final, and the command's append proves the rest newest.
   */
  private async found(caller: Caller, resourceId: string) {
    const missing = refuse('not_found', 'no such document');
    if (!isUuid(resourceId)) return missing;
    const folded = await recallFolded(this.deps.store, resourceStream(resourceId), documentDecider);
    const { state } = folded;
    if (state.status !== 'live') return missing;
    const mayChange = await this.deps.access.canWrite(caller, state.vaultId);
    if (!mayChange && !(await this.deps.access.canRead(caller, state.vaultId))) return missing;
    return { folded: { ...folded, state }, mayChange };
  }

  /** Documents of every vault the caller may read; a vault whose key was erased no longer shows any. */
  async list(caller: Caller): Promise<DocumentView[]> {
    const vaults = await this.deps.access.readableVaults(caller);
    const rows = (await this.deps.readModels.query<DocumentRow>(q.liveOfVaults, [vaults])).rows;
    // One key fetch per vault, not per document.
    const openers = new Map<string, Promise<Opener | null>>();
    const openerOf = (vaultId: string) => {
      if (!openers.has(vaultId)) openers.set(vaultId, this.openerOf(vaultId));
      return openers.get(vaultId)!;
    };
    const views = await Promise.all(rows.map(async (r) => this.view(caller, r, await openerOf(r.vault_id))));
    return views.filter((v): v is DocumentView => v !== null);
  }

  /** null for an unknown id, a document the caller may not read, a deleted or an erased one alike. */
  async get(caller: Caller, resourceId: string): Promise<DocumentView | null> {
    if (!isUuid(resourceId)) return null;
    const row = (await this.deps.readModels.query<DocumentRow>(q.liveById, [resourceId])).rows[0];
    if (!row || !(await this.deps.access.canRead(caller, row.vault_id))) return null;
    return this.view(caller, row, await this.openerOf(row.vault_id));
  }

  /** The versions of a document that list or get gave the caller, oldest first. */
  async versions(document: Pick<DocumentView, 'id'>): Promise<DocumentVersionView[]> {
    const rows = (await this.deps.readModels.query<{ version: number; published_at: Date | string }>(q.versionsOf, [document.id])).rows;
    return rows.map((r) => ({ documentId: document.id, version: r.version, publishedAt: new Date(r.published_at).toISOString() }));
  }

  /**
   * A version's data, from its own event in the log (the read model holds only the newest data): version n
   * is the stream's revision n - 1, as the deciders number them. Null once the vault's key was erased.
   */
  async dataOf({ documentId, version }: DocumentVersionView): Promise<JsonValue | null> {
    const [event] = await readDecoded(this.deps.store, resourceStream(documentId), version - 1, 1);
    if ((event?.type !== 'DocumentCreated' && event?.type !== 'DocumentUpdated') || event.data.version !== version) return null;
    const open = await this.openerOf(event.data.vaultId);
    if (!open) return null;
    const plaintext = open(Buffer.from(event.data.sealedData, 'base64'), documentSealContext(documentId, version));
    return JSON.parse(plaintext.toString('utf8')) as JsonValue;
  }

  /** null once the vault's key was erased: its documents no longer open. */
  private openerOf(vaultId: string): Promise<Opener | null> {
    return unlessErased(this.deps.keyring.opener(vaultId));
  }

  private view(caller: Caller, row: DocumentRow, opener: Opener | null): DocumentView | null {
    if (!opener) return null;
    const plaintext = opener(Buffer.from(row.sealed_data, 'base64'), documentSealContext(row.resource_id, row.version));
    return {
      id: row.resource_id,
      name: row.name,
      description: row.description,
      owner: row.vault_id === caller.identityId ? null : row.vault_id,
      schemaRef: row.schema_ref === null ? null : this.deps.validator.canonicalRef(row.schema_ref),
      documentSchema: row.document_schema,
      version: row.version,
      data: JSON.parse(plaintext.toString('utf8')) as JsonValue,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  private async check(caller: Caller, schema: Schema, data: JsonValue): Promise<Refusal | null> {
    const result =
      schema.schemaRef !== null
        ? this.deps.validator.validateWithBuiltin(schema.schemaRef, data)
        : await this.deps.validator.validateWithSchema(schema.documentSchema, data, caller.identityId);
    return asRefusal(result);
  }

  /**
   * Uniqueness per (vault, schemaRef) or per (vault, documentSchema as canonical JSON); a built-in
   * is the same schema under every base the database was served under (contract §10.13).
   */
  private schemaKeys(schema: Schema): { schemaKey: string; earlierKeys: string[] } {
    if (schema.schemaRef === null)
      return { schemaKey: `inline:${createHash('sha256').update(canonicalJson(schema.documentSchema)).digest('hex')}`, earlierKeys: [] };
    const [current = schema.schemaRef, ...earlier] = this.deps.validator.idsOf(schema.schemaRef);
    return { schemaKey: `ref:${current}`, earlierKeys: earlier.map((id) => `ref:${id}`) };
  }
}

type DocumentRow = {
  resource_id: string;
  vault_id: string;
  name: string;
  description: string | null;
  schema_ref: string | null;
  document_schema: JsonValue;
  version: number;
  sealed_data: string;
  created_at: Date | string;
  updated_at: Date | string;
};

/** Rule 5: exactly one of schemaRef and documentSchema. */
function schemaOf(input: DocumentInput): Schema | Refusal {
  const hasRef = input.schemaRef !== undefined && input.schemaRef !== null;
  const hasSchema = input.documentSchema !== undefined && input.documentSchema !== null;
  if (hasRef && hasSchema) return refuse('both_schema_definitions', 'both schema definitions: give schemaRef or documentSchema, not both');
  if (!hasRef && !hasSchema) return refuse('no_schema_definition', 'no schema definition: give schemaRef or documentSchema');
  return hasRef ? { schemaRef: input.schemaRef, documentSchema: null } : { schemaRef: null, documentSchema: input.documentSchema! };
}

function asRefusal(result: ValidationResult): Refusal | null {
  if (result.ok) return null;
  switch (result.code) {
    case 'SCHEMA_NOT_FOUND':
      return refuse('schema_not_found', 'schema not found');
    case 'BUSY':
      return refuse('rate_limited', `validation is busy: ${result.message}; try again shortly`, 1);
    case 'SCHEMA_INVALID':
      return refuse('schema_invalid', `schema invalid: ${result.message}`);
    case 'DATA_INVALID': {
      const first = result.errors[0];
      const message = first ? `data invalid at ${first.instancePath || '/'}: ${first.message}` : result.message;
      return refuseWith('data_invalid', message, { errors: result.errors });
    }
  }
}

/** Binds each sealed version to its document and version: a sealed value moved elsewhere fails to open. */
export const documentSealContext = (resourceId: string, version: number): string => `resource:${resourceId}/v${version}`;

import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { DocumentCreated, DocumentDeleted, DocumentUpdated } from '../../src/events/document-events.js';
import { documentsProjector } from '../../src/projections/documents/documents.js';
import { seal } from '../../src/vaults/envelope-crypto.js';
import { at, projectorSpecs, uuid } from '../support/projector-spec.js';

const vault = uuid(1);
const doc = uuid(2);
const vaultKey = randomBytes(32);
const bankAccount = { iban: 'DE89370400440532013000', accountHolder: 'Ann Example' };
const sealed = (data: object, version: number) =>
  seal(vaultKey, Buffer.from(JSON.stringify(data)), `resource:${doc}/v${version}`).toString('base64');

const created = (overrides: Partial<DocumentCreated['data']> = {}): DocumentCreated => ({
  type: 'DocumentCreated',
  data: {
    resourceId: doc,
    vaultId: vault,
    name: 'Salary account',
    description: 'for payroll',
    schemaRef: 'http://localhost:3000/schemas/core/PersonBankAccount.json',
    documentSchema: null,
    uniquePerVault: true,
    version: 1,
    sealedData: sealed(bankAccount, 1),
    ...overrides,
  },
});
const updated = (version: number, name: string, description: string | null, data: object): DocumentUpdated => ({
  type: 'DocumentUpdated',
  data: { resourceId: doc, vaultId: vault, name, description, version, sealedData: sealed(data, version) },
});
const deleted: DocumentDeleted = { type: 'DocumentDeleted', data: { resourceId: doc, vaultId: vault } };

const documents = `SELECT resource_id, vault_id, name, description, schema_ref, document_schema, unique_per_vault, version,
                          sealed_data, created_at, updated_at, deleted_at FROM documents ORDER BY resource_id`;

describe('documents read model: every document of every vault, data sealed', () => {
  const given = projectorSpecs();

  it('DocumentCreated stores version 1: metadata and schema in clear, the data exactly as sealed in the event', () => {
    const event = created();
    return given(documentsProjector, at('2026-07-01T12:00:00.000Z', event)).thenRows(documents, [
      {
        resource_id: doc,
        vault_id: vault,
        name: 'Salary account',
        description: 'for payroll',
        schema_ref: 'http://localhost:3000/schemas/core/PersonBankAccount.json',
        document_schema: null,
        unique_per_vault: true,
        version: 1,
        sealed_data: event.data.sealedData,
        created_at: '2026-07-01T12:00:00.000Z',
        updated_at: '2026-07-01T12:00:00.000Z',
        deleted_at: null,
      },
    ]);
  });

  it('an embedded schema is kept as JSON beside the sealed data; no built-in reference', () => {
    const documentSchema = { type: 'object', properties: { iban: { type: 'string' } }, required: ['iban'] };
    return given(documentsProjector, created({ schemaRef: null, documentSchema, description: null, uniquePerVault: false })).thenRows(
      'SELECT schema_ref, document_schema, description, unique_per_vault FROM documents',
      [{ schema_ref: null, document_schema: documentSchema, description: null, unique_per_vault: false }],
    );
  });

  it('the data column holds the sealed bytes only, never the clear data, in every version', async () => {
    const v2data = { ...bankAccount, iban: 'FR7630006000011234567890189' };
    const stillSealed =
      (clear: object) =>
      ([row]: Record<string, unknown>[]) => {
        const stored = String(row!.sealed_data);
        const bytes = Buffer.from(stored, 'base64');
        for (const text of [...Object.values(clear), Buffer.from(JSON.stringify(clear)).toString('base64').slice(0, 12)]) {
          expect(stored).not.to.include(text);
          expect(bytes.toString('latin1')).not.to.include(text);
        }
        expect(bytes.length, 'iv, tag and ciphertext').to.equal(12 + 16 + Buffer.byteLength(JSON.stringify(clear)));
      };
    await given(documentsProjector, created()).thenRowsSatisfy('SELECT sealed_data FROM documents', stillSealed(bankAccount));
    await given(documentsProjector, created(), updated(2, 'Salary account', null, v2data)).thenRowsSatisfy(
      'SELECT sealed_data FROM documents',
      stillSealed(v2data),
    );
  });

  it('DocumentUpdated replaces name, description, version and sealed data; schema, flag and creation time stay', () => {
    const v3 = updated(3, 'Main account', null, { ...bankAccount, accountHolder: 'Ann B. Example' });
    return given(
      documentsProjector,
      at('2026-07-01T12:00:00.000Z', created()),
      at('2026-07-02T12:00:00.000Z', updated(2, 'Salary account', 'old bank', bankAccount)),
      at('2026-07-03T12:00:00.000Z', v3),
    ).thenRows(documents, [
      {
        resource_id: doc,
        vault_id: vault,
        name: 'Main account',
        description: null,
        schema_ref: 'http://localhost:3000/schemas/core/PersonBankAccount.json',
        document_schema: null,
        unique_per_vault: true,
        version: 3,
        sealed_data: v3.data.sealedData,
        created_at: '2026-07-01T12:00:00.000Z',
        updated_at: '2026-07-03T12:00:00.000Z',
        deleted_at: null,
      },
    ]);
  });

  it('DocumentDeleted marks the row with the time and keeps everything else', () => {
    const v2 = updated(2, 'Salary account', 'for payroll', bankAccount);
    return given(
      documentsProjector,
      at('2026-07-01T12:00:00.000Z', created()),
      at('2026-07-02T12:00:00.000Z', v2),
      at('2026-07-09T08:00:00.000Z', deleted),
    ).thenRows('SELECT version, sealed_data, updated_at, deleted_at FROM documents', [
      { version: 2, sealed_data: v2.data.sealedData, updated_at: '2026-07-02T12:00:00.000Z', deleted_at: '2026-07-09T08:00:00.000Z' },
    ]);
  });

  it('each version is listed with the time it was published; a deletion leaves the list as it was', () =>
    given(
      documentsProjector,
      at('2026-07-01T12:00:00.000Z', created()),
      at('2026-07-02T12:00:00.000Z', updated(2, 'Salary account', null, bankAccount)),
      at('2026-07-03T12:00:00.000Z', updated(3, 'Main account', null, bankAccount)),
      at('2026-07-09T08:00:00.000Z', deleted),
    ).thenRows('SELECT resource_id, version, published_at FROM document_versions ORDER BY version', [
      { resource_id: doc, version: 1, published_at: '2026-07-01T12:00:00.000Z' },
      { resource_id: doc, version: 2, published_at: '2026-07-02T12:00:00.000Z' },
      { resource_id: doc, version: 3, published_at: '2026-07-03T12:00:00.000Z' },
    ]));

  it('events of one document leave every other document alone', () => {
    const other = created({ resourceId: uuid(3), name: 'Other', version: 1 });
    return given(documentsProjector, other, created(), updated(2, 'Renamed', null, bankAccount), deleted).thenRows(
      'SELECT resource_id, name, version, deleted_at IS NOT NULL AS deleted FROM documents ORDER BY resource_id',
      [
        { resource_id: doc, name: 'Renamed', version: 2, deleted: true },
        { resource_id: uuid(3), name: 'Other', version: 1, deleted: false },
      ],
    );
  });
});

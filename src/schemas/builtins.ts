import { readFileSync } from 'node:fs';
import { DIALECT } from './dialect.js';
import type { SchemaObject } from './dialect.js';

/** The 24 built-in schemas (R-SCH-12). */
export const BUILTIN_NAMES = [
  'PersonFullName',
  'PersonAddress',
  'PersonBankAccount',
  'LegalEntity',
  'UBOStructure',
  'PersonBirth',
  'PersonNationality',
  'PersonContact',
  'PersonIdentityDocument',
  'PersonTaxResidency',
  'PersonEmployment',
  'PersonIncome',
  'PersonPoliticalExposure',
  'PersonSourceOfFunds',
  'PersonResidencePermit',
  'LegalEntityAddress',
  'LegalEntityRegistration',
  'LegalEntityTaxId',
  'LegalEntityBankAccount',
  'LegalEntityRepresentative',
  'LegalEntityShareholder',
  'LegalEntityFinancials',
  'LegalEntityLicense',
  'LegalEntityContact',
] as const;

export type BuiltinName = (typeof BUILTIN_NAMES)[number];

export type BuiltinSchema = {
  readonly name: BuiltinName;
  /** `{SCHEMA_BASE}/core/<Name>.json`: the canonical URL, the schema's `$id`, what schemaRef names. */
  readonly id: string;
  readonly schema: SchemaObject;
};

export function builtinId(schemaBase: string, name: string): string {
  return `${schemaBase.replace(/\/+$/, '')}/core/${name}.json`;
}

/**
 * Reads core/<Name>.json and stamps its `$id` from the configured base, so the same files serve
 * any deployment. References between built-ins are relative ("PersonFullName.json") and follow.
 */
export function loadBuiltins(schemaBase: string): readonly BuiltinSchema[] {
  return BUILTIN_NAMES.map((name) => {
    const file = JSON.parse(readFileSync(new URL(`./core/${name}.json`, import.meta.url), 'utf8')) as SchemaObject;
    const id = builtinId(schemaBase, name);
    const { $schema: _dialect, $id: _id, ...rest } = file;
    return { name, id, schema: { $schema: DIALECT, $id: id, ...rest } };
  });
}

import type { Entity } from './vault-data';

/** What the choice needs of a legal entity: the request page reads no members. */
type Owner = Pick<Entity, 'entityId' | 'name' | 'role'>;

/** The legal entities the person manages: only for those may they make a record. */
export const managedOf = <T extends Owner>(entities: readonly T[]): T[] => entities.filter((e) => e.role === 'MANAGER');

type Props = {
  readonly id: string;
  readonly label: string;
  readonly entities: readonly Owner[];
  /** The entity's id, or '' for the person's own. */
  readonly value: string;
  readonly onChange: (owner: string) => void;
  /** Whether the person's own vault is a choice too (not for a slot about a company). */
  readonly yours?: boolean;
};

/** Whose a new record is: one of the legal entities the person manages, or their own. */
export function OwnerSelect({ id, label, entities, value, onChange, yours = false }: Props) {
  return (
    <p>
      <label htmlFor={id}>{label}</label>
      <br />
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {yours && <option value="">Yours</option>}
        {managedOf(entities).map((e) => (
          <option key={e.entityId} value={e.entityId}>
            {e.name}
          </option>
        ))}
      </select>
    </p>
  );
}

import type { OrgSession } from '../org-session';

export type Permission = Parameters<OrgSession['can']>[0];

/** What each permission lets a member do, in the order the pages list them. */
const WORDS: Readonly<Record<Permission, string>> = {
  request_read: 'See requests and what people shared',
  request_manage: 'Send and manage requests',
  manifest_manage: 'Write and publish manifests',
  member_manage: 'Manage members, apps and the key',
};

export const PERMISSIONS = Object.keys(WORDS) as Permission[];

export const permissionWords = (p: string): string => WORDS[p as Permission] ?? p.replace(/_/g, ' ');

/** A member's permissions as checkboxes; `id` keeps each set's inputs apart on one page. */
export function PermissionBoxes({
  id,
  legend,
  value,
  onChange,
}: {
  readonly id: string;
  readonly legend: string;
  readonly value: readonly string[];
  readonly onChange: (permissions: Permission[]) => void;
}) {
  const toggle = (p: Permission, on: boolean) => onChange(PERMISSIONS.filter((q) => (q === p ? on : value.includes(q))));
  return (
    <fieldset className="admin-choices">
      <legend>{legend}</legend>
      {PERMISSIONS.map((p) => (
        <div className="admin-choice" key={p}>
          <input id={`${id}-${p}`} type="checkbox" checked={value.includes(p)} onChange={(e) => toggle(p, e.target.checked)} />
          <label htmlFor={`${id}-${p}`}>{WORDS[p]}</label>
        </div>
      ))}
    </fieldset>
  );
}

import type { OrgSession } from './org-session';
import { NotYet } from '../stub';

export function Members(_props: { readonly org: OrgSession; readonly requestId?: string }) {
  return <NotYet title="Members" />;
}

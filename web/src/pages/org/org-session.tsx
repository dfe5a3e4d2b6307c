import { useEffect, useState, type ReactNode } from 'react';
import { messageOf, orgApi, post, Refused, type OrgApi } from '../../api';
import { Loaded, Shell, type Load } from '../../layout';
import { toSignIn } from '../../navigation';

/** A member signed in to one organization through its member cookie (R-WEB-08), and what they may do. */
export type OrgSession = {
  readonly api: OrgApi;
  readonly organizationId: string;
  readonly permissions: readonly string[];
  readonly can: (permission: 'request_read' | 'request_manage' | 'manifest_manage' | 'member_manage') => boolean;
};

type MemberToken = { readonly organizationId: string; readonly permissions: string[]; readonly expiresAt: string };

/**
 * Signs in as a member of `organizationId` (POST /org/v1/token through the session's cookie: the
 * service sets the member cookie, the page never sees the token), then renders the page inside the
 * shell with the organization's navigation. Not a member: the organization is not found (404).
 */
export function OrgPage({
  organizationId,
  children,
}: {
  readonly organizationId: string;
  readonly children: (org: OrgSession) => ReactNode;
}) {
  const [load, setLoad] = useState<Load<OrgSession>>({ kind: 'loading' });
  useEffect(() => {
    setLoad({ kind: 'loading' });
    post<MemberToken>('/org/v1/token', { organizationId }).then(
      (t) => {
        const permissions = t.permissions;
        setLoad({
          kind: 'ready',
          value: { api: orgApi(organizationId), organizationId, permissions, can: (p) => permissions.includes(p) },
        });
      },
      (e: unknown) => {
        if (e instanceof Refused && e.status === 401) toSignIn();
        else
          setLoad({
            kind: 'failed',
            message: e instanceof Refused && e.status === 404 ? 'This organization was not found.' : messageOf(e),
          });
      },
    );
  }, [organizationId]);
  return (
    <Shell organizationId={organizationId}>
      <Loaded load={load}>{(org) => children(org)}</Loaded>
    </Shell>
  );
}

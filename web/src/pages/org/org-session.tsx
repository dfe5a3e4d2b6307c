import type { ReactNode } from 'react';
import { Failure, Loaded, RefusalWords, useAction, useLoad } from '../../actions';
import { messageOf, notFoundAs, orgApi, post, Refused, type Answer, type OrgApi } from '../../api';
import { Shell } from '../../layout';

type MemberToken = Answer<'post', '/org/v1/token'>;

/** A member signed in to one organization through its member cookie (R-WEB-08), and what they may do. */
export type OrgSession = {
  readonly api: OrgApi;
  readonly organizationId: string;
  readonly permissions: Readonly<MemberToken['permissions']>;
  readonly can: (permission: MemberToken['permissions'][number]) => boolean;
};

/** POST /org/v1/token through the session's cookie: the service sets the member cookie and the organization's key warms (R-ORG-02). */
const signInAsMember = (organizationId: string) => post<MemberToken>('/org/v1/token', { organizationId });

/** A refusal in the member's words: a 403 means their permissions leave this out, not that something broke. */
const memberWords = (e: unknown): string =>
  e instanceof Refused && e.status === 403 ? 'Your permissions in this organization do not include this.' : messageOf(e);

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
  // The router keys this page by organizationId: another organization is another page.
  const [load] = useLoad(() =>
    signInAsMember(organizationId).then(
      ({ permissions }): OrgSession => ({ api: orgApi(organizationId), organizationId, permissions, can: (p) => permissions.includes(p) }),
      notFoundAs('This organization was not found.'),
    ),
  );
  return (
    <Shell organizationId={organizationId}>
      <Loaded load={load}>{(org) => <RefusalWords value={memberWords}>{children(org)}</RefusalWords>}</Loaded>
    </Shell>
  );
}

/**
 * Signs the member in again, which warms a sealed key (R-WEB-10), then `after` reads the page again:
 * moving between the organization's pages keeps OrgPage, so only this (or loading a page afresh) signs in.
 */
export function UnsealButton({ org, after }: { readonly org: OrgSession; readonly after: () => Promise<unknown> }) {
  const { busy, error, run } = useAction(after);
  return (
    <>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => void run(() => signInAsMember(org.organizationId))}>
          Unseal by signing in again
        </button>
      </div>
      <Failure error={error} />
    </>
  );
}

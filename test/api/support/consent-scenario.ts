import { expect } from 'chai';
import type { OrgClient } from '../org/org-client.js';

export type Gql = { data?: Record<string, any> | null; errors?: Array<{ message?: string; extensions?: { code?: string } }> };
export type User = { email: string; token: string };

const BASE = 'http://service.test/schemas/core';

/** The slot most scenarios ask for: the person's full name, kept by hand (no automatic keeps). */
export const MANUAL_NAME_SLOT = {
  label: 'Name',
  group: 'KYC',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
} as const;

/**
 * The calls a consent scenario makes, as the person and one organization member would make them:
 * documents through GraphQL, a request sent, accepted with grants, kept, corrected, and a proposal
 * read and adopted. Suites that audit or export what happened script their scenarios with it.
 */
export function consentScenario(api: OrgClient, member: () => string) {
  const gql = async (u: User, query: string, variables: Record<string, unknown> = {}) =>
    (await api.post('/graphql', u.token, { query, variables })).body as Gql;
  const ok = (r: Gql) => {
    if (r.errors) expect.fail(JSON.stringify(r.errors));
    return r.data!;
  };
  const expectOk = async (call: Promise<{ status: number; body: Record<string, unknown> }>) => {
    const r = await call;
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body;
  };
  return {
    gql,
    ok,
    async createDoc(u: User, schema: string, data: Record<string, unknown>): Promise<string> {
      const input = { name: schema, schemaRef: `${BASE}/${schema}.json`, data };
      return ok(await gql(u, 'mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }', { input })).user
        .document.create.id as string;
    },
    async updateDoc(u: User, id: string, data: Record<string, unknown>): Promise<void> {
      ok(
        await gql(u, 'mutation($id: ID!, $i: DocumentUpdateInput!) { user { document { update(id: $id, input: $i) { version } } } }', {
          id,
          i: { data },
        }),
      );
    },
    /** Sent by the member to the person, accepted with these grants (slot id → resource ids). */
    async connected(manifestId: string, person: User, grants: Record<string, string[]>): Promise<string> {
      const sent = await api.post('/org/v1/requests', member(), { manifestId, recipientEmail: person.email });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      const requestId = (sent.body.request as { requestId: string }).requestId;
      const g = Object.entries(grants).map(([slotId, resourceIds]) => ({ slotId, resourceIds }));
      ok(
        await gql(
          person,
          'mutation($r: ID!, $g: [GrantInput!]!) { user { request { accept(requestId: $r, grants: $g) { requestId } } } }',
          {
            r: requestId,
            g,
          },
        ),
      );
      return requestId;
    },
    keep: (requestId: string, slotId: string) => expectOk(api.post(`/org/v1/requests/${requestId}/slots/${slotId}/adopt`, member())),
    correct: (requestId: string, slotId: string, body: Record<string, unknown>) =>
      expectOk(api.post(`/org/v1/requests/${requestId}/slots/${slotId}/correct`, member(), body)),
    /** Waits for the reactor's proposal on the request, reads its candidate, then adopts it. */
    async readAndAdoptProposal(requestId: string): Promise<void> {
      let open: Array<{ proposalId: string }> = [];
      for (let i = 0; i < 200 && open.length === 0; i++) {
        open = (await api.get(`/org/v1/requests/${requestId}/proposals`, member())).body.proposals as typeof open;
        if (open.length === 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(open, 'a proposal opens').to.have.length(1);
      const { proposalId } = open[0]!;
      await expectOk(api.get(`/org/v1/requests/${requestId}/proposals/${proposalId}/candidate`, member()));
      await expectOk(api.post(`/org/v1/requests/${requestId}/proposals/${proposalId}/adopt`, member()));
    },
  };
}

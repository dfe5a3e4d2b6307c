import { expect } from 'chai';
import { mainBackend } from '../support/databases.js';
import { client } from '../support/http.js';
import { RecordingMailer } from '../support/recording-mailer.js';
import { orgClient, problem, type OrgClient } from './org/org-client.js';
import { driver, type Gql } from './support/driver.js';
import { startTestService, type TestService } from './support/service.js';

const slot = {
  label: 'Full name',
  group: 'Identity',
  multiple: false,
  kind: 'schema',
  target: 'PersonFullName',
  verbs: ['keep'],
  adoption: 'manual',
};
const DAY = 86_400_000;

describe(`input limits (contract 9: durations, control and bidi characters; ${mainBackend})`, function () {
  this.timeout(120_000);
  const mailer = new RecordingMailer();
  let service: TestService;
  let api: OrgClient;
  let ann: { email: string; token: string };
  let acme: string;

  const d = driver({ api: () => api, log: () => service.db });
  const gql = (query: string, variables: Record<string, unknown>) => d.gql(ann, query, variables);
  /** The GraphQL body as text, for a number literal JSON.stringify cannot write. */
  const gqlText = async (body: string) => (await client(service.url).post('/graphql', body, ann.token)).body as Gql;
  const refusal = (r: Gql) => ({ code: r.errors?.[0]?.extensions.code, message: r.errors?.[0]?.message });
  const createDocument = (input: Record<string, unknown>) =>
    gql('mutation($input: DocumentInput!) { user { document { create(input: $input) { id version } } } }', {
      input: { name: 'Doc', documentSchema: {}, data: {}, ...input },
    });

  before(async () => {
    service = await startTestService({ domain: { mailer } });
    api = orgClient(service.url, mailer);
    ann = await api.user();
    acme = await api.signIn(ann.token, await api.organization(ann.token));
  });
  after(() => service.close());

  describe('durations', () => {
    it('a retention over 100 years is 400 invalid_request naming retention, on a manifest and on a version; 100 years is accepted', async () => {
      const since = await d.mark();
      for (const retention of ['P999999999Y', 'P101Y', 'P36501D']) {
        const r = await api.post('/org/v1/manifests', acme, { name: 'KYC', purpose: 'To check who you are', retention, slots: [slot] });
        expect(problem(r), retention).to.deep.equal({ status: 400, code: 'invalid_request' });
        expect(r.body.detail).to.contain('retention').and.contain('100 years');
      }
      expect(await d.appendedSince(since)).to.deep.equal([]);
      const created = await api.post('/org/v1/manifests', acme, {
        name: 'KYC',
        purpose: 'To check who you are',
        retention: 'P100Y',
        slots: [slot],
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const { manifestId, slots } = created.body.manifest as { manifestId: string; slots: Array<{ slotId: string }> };
      const version = await api.post(`/org/v1/manifests/${manifestId}/versions`, acme, {
        purpose: 'To check who you are',
        retention: 'P999999999Y',
        slots: [{ ...slot, slotId: slots[0]!.slotId }],
      });
      expect(problem(version)).to.deep.equal({ status: 400, code: 'invalid_request' });
    });

    it('invitationExpiresAt must be a timestamp with an offset and a real date; a year like 275760 is refused', async () => {
      const { manifestId } = (
        await api.post('/org/v1/manifests', acme, { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [slot] })
      ).body.manifest as { manifestId: string };
      const tomorrow = new Date(Date.now() + DAY).toISOString();
      for (const until of [
        tomorrow.slice(0, 19),
        tomorrow.slice(0, 10),
        '+275760-09-13T00:00:00.000Z',
        `${new Date().getUTCFullYear() + 1}-02-30T10:00:00Z`,
        'tomorrow',
        42,
      ]) {
        const r = await api.post('/org/v1/requests', acme, { manifestId, recipientEmail: ann.email, invitationExpiresAt: until });
        expect(problem(r), String(until)).to.deep.equal({ status: 400, code: 'invalid_request' });
        expect(r.body.detail).to.contain('invitationExpiresAt');
      }
      const withOffset = tomorrow.replace('Z', '+00:00');
      expect(
        (await api.post('/org/v1/requests', acme, { manifestId, recipientEmail: ann.email, invitationExpiresAt: withOffset })).status,
      ).to.equal(201);
    });
  });

  describe('text on the organization plane (REST)', () => {
    it('refuses U+0000, other controls and lone surrogates in every name and label, naming the field, and stores nothing', async () => {
      const since = await d.mark();
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['/org/v1/organizations', { name: 'Ac\u0000me' }, 'name'],
        ['/org/v1/apps', { name: 'App\u0007' }, 'name'],
        ['/org/v1/manifests', { name: 'KYC\ud800', purpose: 'To check who you are', retention: 'P30D', slots: [slot] }, 'name'],
        [
          '/org/v1/manifests',
          { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [slot, { ...slot, label: 'Tab\there' }] },
          'slots[1].label',
        ],
        [
          '/org/v1/manifests',
          { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [{ ...slot, group: 'a\u007fb' }] },
          'slots[0].group',
        ],
        [
          '/org/v1/manifests',
          { name: 'KYC', purpose: 'To check who you are', retention: 'P30D', slots: [{ ...slot, subject: 'company\n' }] },
          'slots[0].subject',
        ],
      ];
      for (const [path, body, field] of cases) {
        const r = await api.post(path, path === '/org/v1/organizations' ? ann.token : acme, body);
        expect(problem(r), JSON.stringify(body)).to.deep.equal({ status: 400, code: 'invalid_request' });
        expect(r.body.detail, JSON.stringify(body)).to.match(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')} contains`));
      }
      // A login address with a control character is malformed like any other (contract §8).
      const login = await api.post('/auth/send-otp', undefined, { email: `${ann.email}\n` });
      expect(problem(login)).to.deep.equal({ status: 400, code: 'invalid_email' });
      expect(await d.appendedSince(since)).to.deep.equal([]);
    });

    it('names that reach the invitation mail refuse bidi controls and links; other labels may hold bidi text', async () => {
      for (const name of ['Acme\u202Egnp.exe', 'Acme\u2066', '\u200FAcme', 'Acme\u061C', 'Log in at https://evil.test']) {
        expect(problem(await api.post('/org/v1/organizations', ann.token, { name })), name).to.deep.equal({
          status: 400,
          code: 'invalid_request',
        });
        expect(
          problem(await api.post('/org/v1/manifests', acme, { name, purpose: 'To check who you are', retention: 'P30D', slots: [slot] })),
          name,
        ).to.deep.equal({
          status: 400,
          code: 'invalid_request',
        });
      }
      expect((await api.post('/org/v1/organizations', ann.token, { name: 'Booking.com B.V.' })).status).to.equal(201);
      const hebrew = await api.post('/org/v1/manifests', acme, {
        name: 'KYC',
        purpose: 'To check who you are',
        retention: 'P30D',
        slots: [{ ...slot, label: 'שם \u200Fמלא' }],
      });
      expect(hebrew.status, JSON.stringify(hebrew.body)).to.equal(201);
    });
  });

  describe('text and JSON through GraphQL', () => {
    it('refuses controls in displayName, document and entity names with BAD_USER_INPUT naming the argument', async () => {
      const fresh = await api.user({ register: false });
      const since = await d.mark();
      const register = (
        await client(service.url).post(
          '/graphql',
          {
            query: 'mutation($i: RegisterInput!) { user { register(input: $i) { userId } } }',
            variables: { i: { displayName: 'Ann\u0000' } },
          },
          fresh.token,
        )
      ).body as Gql;
      expect(refusal(register)).to.deep.equal({
        code: 'BAD_USER_INPUT',
        message: 'input.displayName contains the control character U+0000',
      });
      expect(refusal(await createDocument({ name: 'Bell\u0007' }))).to.deep.equal({
        code: 'BAD_USER_INPUT',
        message: 'input.name contains the control character U+0007',
      });
      expect(
        refusal(await gql('mutation($n: String!) { user { entity { create(name: $n) { entityId } } } }', { n: 'Ann\u001bGmbH' })),
      ).to.deep.equal({ code: 'BAD_USER_INPUT', message: 'name contains the control character U+001B' });
      expect(await d.appendedSince(since)).to.deep.equal([]);
    });

    it('a description is free text: tab and newline pass, carriage return and NUL do not', async () => {
      expect((await createDocument({ description: 'line one\n\tline two' })).errors).to.equal(undefined);
      for (const description of ['a\r\nb', 'a\u0000b'])
        expect(refusal(await createDocument({ description })).code, description).to.equal('BAD_USER_INPUT');
    });

    it('document data and embedded schemas refuse U+0000 and lone surrogates in any string or key, naming the path; other controls are data', async () => {
      expect(refusal(await createDocument({ data: { items: ['ok', 'a\u0000b'] } })).message).to.equal('input.data/items/1 contains U+0000');
      expect(refusal(await createDocument({ data: { 'a/b': { 'k\u0000': 1 } } })).message).to.equal(
        'a key of input.data/a~1b contains U+0000',
      );
      expect(refusal(await createDocument({ documentSchema: { title: 'x\udc00' } })).message).to.equal(
        'input.documentSchema/title contains a lone surrogate',
      );
      expect(refusal(await createDocument({ documentSchema: { properties: { '\u0000': {} } } })).code).to.equal('BAD_USER_INPUT');
      const created = await createDocument({ data: { bell: 'a\u0007b', emoji: '😀' } });
      expect(created.errors, JSON.stringify(created.errors)).to.equal(undefined);
    });

    it('a number JSON cannot hold (1e400) and a null for data are BAD_USER_INPUT, never an internal error', async () => {
      const body = (data: string) =>
        '{"query":"mutation($input: DocumentInput!) { user { document { create(input: $input) { id } } } }",' +
        `"variables":{"input":{"name":"n","documentSchema":{},"data":${data}}}}`;
      expect(refusal(await gqlText(body('{"big":1e400}')))).to.deep.equal({
        code: 'BAD_USER_INPUT',
        message: 'input.data/big is a number out of range',
      });
      expect(refusal(await gqlText(body('null'))).code).to.equal('BAD_USER_INPUT');
    });
  });
});

import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JobQueue } from '../../src/workers/queue/queue.js';
import type { Workers } from '../../src/workers/reactor-runner.js';
import { eventually, receiver, startDeliveries } from '../api/webhooks/webhook-support.js';
import { mainBackend } from '../support/databases.js';
import { sdkScenario, type SdkScenario } from '../sdk/support/sdk-scenario.js';
import { until } from '../support/until.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Ran = { readonly code: number | null; readonly stdout: string; readonly stderr: string };
type Json = Record<string, unknown>;

/** dss as a script runs it, from the source: stdout is a pipe, so NDJSON unless --output says otherwise. */
function start(args: readonly string[], options: { config: string; env?: Record<string, string> }) {
  const env: NodeJS.ProcessEnv = { ...process.env, DSS_CONFIG: options.config, ...options.env };
  if (!options.env?.DSS_URL) delete env.DSS_URL;
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', 'cli/src/main.ts', ...args],
    { cwd: ROOT, env },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const result = new Promise<Ran>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, result, stdout: () => stdout };
}

function dss(args: readonly string[], options: { config: string; env?: Record<string, string> }): Promise<Ran> {
  const run = start(args, options);
  run.child.stdin.end();
  return run.result;
}

/** A run that must succeed, its NDJSON lines parsed. */
async function lines(args: readonly string[], options: { config: string; env?: Record<string, string> }): Promise<Json[]> {
  const ran = await dss(args, options);
  expect(ran.code, `dss ${args.join(' ')}: ${ran.stderr}`).to.equal(0);
  return parse(ran.stdout);
}

const parse = (stdout: string): Json[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Json);

describe(`dss, the command-line interface, against a real service (docs/cli.md; ${mainBackend})`, function () {
  this.timeout(60_000);
  let s: SdkScenario;
  let deliveries: { queue: JobQueue; workers: Workers };
  let dir: string;
  /** The owner signed in and using Acme, as `dss login` and `dss use` leave it. */
  let member: { config: string };

  before(async () => {
    s = await sdkScenario({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
    deliveries = await startDeliveries(s.service);
    dir = await mkdtemp(join(tmpdir(), 'dss-cli-'));
    member = { config: join(dir, 'member.json') };
    const stored = {
      url: s.service.url,
      email: s.ownerEmail,
      userToken: s.ownerToken,
      organizationId: s.organizationId,
      memberToken: s.memberToken,
    };
    await writeFile(member.config, JSON.stringify(stored));
  });
  after(async () => {
    await deliveries?.workers.stop();
    await deliveries?.queue.close();
    await s?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('--help on a subcommand exits 0 and shows its examples; dss --help documents the exit codes', async () => {
    const help = await dss(['webhooks', 'add', '--help'], member);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('Examples:').and.to.contain('$ dss webhooks add https://');
    const root = await dss(['--help'], member);
    expect(root.code).to.equal(0);
    expect(root.stdout).to.match(/Exit codes:[\s\S]*2 +usage error[\s\S]*5 +the service is unavailable/);
  });

  it('an unknown option is a usage error: exit 2, with the message on stderr', async () => {
    const ran = await dss(['requests', 'list', '--colour'], member);
    expect(ran.code).to.equal(2);
    expect(ran.stderr).to.contain("unknown option '--colour'");
  });

  it('without stored credentials a member command exits 3 and says to sign in', async () => {
    const ran = await dss(['requests', 'list'], { config: join(dir, 'absent.json') });
    expect(ran.code).to.equal(3);
    expect(ran.stderr).to.match(/^dss: not_signed_in: run `dss login/);
  });

  it('a refusal of the service exits 4 and prints its code and detail: an unknown request is not_found', async () => {
    const ran = await dss(['requests', 'show', '00000000-0000-4000-8000-000000000000'], member);
    expect(ran.code).to.equal(4);
    expect(ran.stderr).to.match(/^dss: not_found: .+/);
  });

  it('a service that cannot be reached exits 5 (DSS_URL overrides the stored URL: here a closed port)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const ran = await dss(['keep', s.requestId, s.slotId], { ...member, env: { DSS_URL: `http://127.0.0.1:${port}` } });
    expect(ran.code, ran.stderr).to.equal(5);
    expect(ran.stderr).to.match(/^dss: unreachable: .*ECONNREFUSED/);
  });

  it('login reads the mailed code from the first line of stdin and stores the user token (mode 0600); use signs in as a member of an organization orgs lists', async () => {
    const config = join(dir, 'login.json');
    const mailed = () => s.mailer.sent.filter((m) => m.to === s.ownerEmail).length;
    const before = mailed();
    const login = start(['login', '--url', s.service.url, '--email', s.ownerEmail], { config });
    await until(async () => mailed() > before);
    login.child.stdin.end(`${s.mailer.lastCodeFor(s.ownerEmail)}\n`);
    const signedIn = await login.result;
    expect(signedIn.code, signedIn.stderr).to.equal(0);
    expect((await stat(config)).mode & 0o777).to.equal(0o600);
    const stored = JSON.parse(await readFile(config, 'utf8')) as Json;
    expect(stored).to.include({ url: s.service.url, email: s.ownerEmail }).and.to.have.property('userToken').that.is.a('string');
    expect(stored).not.to.have.property('memberToken');

    const memberships = await lines(['orgs'], { config });
    expect(memberships.map((m) => ({ organizationId: m.organizationId, name: m.name }))).to.deep.equal([
      { organizationId: s.organizationId, name: 'Acme' },
    ]);
    expect(await lines(['use', s.organizationId], { config })).to.deep.equal([{ organizationId: s.organizationId }]);
    expect(JSON.parse(await readFile(config, 'utf8')))
      .to.include({ organizationId: s.organizationId })
      .and.to.have.property('memberToken');
    const requests = await lines(['requests', 'list'], { config });
    expect(requests.map((r) => r.requestId)).to.include(s.requestId);
  });

  it('a member command whose stored member token is refused (401) signs in again with the user token, and stores the new one', async () => {
    const config = join(dir, 'stale.json');
    const stale = {
      url: s.service.url,
      email: s.ownerEmail,
      userToken: s.ownerToken,
      organizationId: s.organizationId,
      memberToken: 'stale',
    };
    await writeFile(config, JSON.stringify(stale), { mode: 0o600 });
    const requests = await lines(['requests', 'list'], { config });
    expect(requests.map((r) => r.requestId)).to.include(s.requestId);
    const stored = JSON.parse(await readFile(config, 'utf8')) as Json;
    expect(stored.memberToken).to.be.a('string').and.not.equal('stale');
  });

  it('requests list through a pipe is NDJSON, one request a line; --state filters; --output text is a table', async () => {
    const active = await lines(['requests', 'list', '--state', 'active'], member);
    expect(active.map((r) => ({ requestId: r.requestId, state: r.state }))).to.deep.equal([{ requestId: s.requestId, state: 'active' }]);
    expect(await lines(['requests', 'list', '--state', 'revoked'], member)).to.deep.equal([]);
    const text = await dss(['requests', 'list', '--output', 'text'], member);
    expect(text.stdout.split('\n')[0]).to.match(/^REQUEST +STATE +RECIPIENT +MANIFEST +CREATED$/);
    expect(text.stdout).to.match(new RegExp(`^${s.requestId} +active +`, 'm'));
  });

  it('keep prints the adoption it made; copies then shows the kept copy with its data', async () => {
    const kept = await lines(['keep', s.requestId, s.slotId], member);
    expect(kept).to.have.length(1);
    expect(kept[0]).to.include({ kind: 'adoption', slotId: s.slotId, sourceResourceId: s.documentId, sourceVersion: 1 });
    const copies = await lines(['copies', s.requestId], member);
    expect(copies).to.have.length(1);
    expect(copies[0]).to.include({ currentOrgVersion: 1, currentOrigin: 'copy' });
    expect(copies[0]!.currentData).to.deep.equal({ givenName: 'Ann', familyName: 'Example' });
  });

  it("correct sends the file's document against the newest kept copy; copies then shows the correction as the head", async () => {
    const file = join(dir, 'name.json');
    await writeFile(file, JSON.stringify({ givenName: 'Ann', familyName: 'Corrected' }));
    const corrected = await lines(['correct', s.requestId, s.slotId, '--file', file], member);
    expect(corrected).to.have.length(1);
    expect(corrected[0]).to.include({ orgVersion: 2 });
    const [copy] = await lines(['copies', s.requestId], member);
    expect(copy).to.include({ currentOrgVersion: 2, currentOrigin: 'correction' });
    expect(copy!.currentData).to.deep.equal({ givenName: 'Ann', familyName: 'Corrected' });
  });

  it('proposals show prints the proposed version field by field against the copy in use; adopt then keeps it', async () => {
    const version = await s.publish({ givenName: 'Ann', familyName: 'Sample' });
    const open = await lines(['proposals', 'list', s.requestId], member);
    expect(open.map((p) => ({ resourceId: p.resourceId, newVersion: p.newVersion }))).to.deep.equal([
      { resourceId: s.documentId, newVersion: version },
    ]);
    const proposalId = open[0]!.proposalId as string;

    const shown = await dss(['proposals', 'show', s.requestId, proposalId, '--output', 'text'], member);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout.trimEnd().split('\n').slice(-1)).to.deep.equal(['~ familyName: "Corrected" -> "Sample"']);
    const [piped] = await lines(['proposals', 'show', s.requestId, proposalId], member);
    expect(piped!.changes).to.deep.equal([{ op: '~', path: 'familyName', from: 'Corrected', to: 'Sample' }]);

    const [adopted] = await lines(['proposals', 'adopt', s.requestId, proposalId], member);
    expect(adopted).to.include({ sourceResourceId: s.documentId, sourceVersion: version });
    expect(await lines(['proposals', 'list', s.requestId], member)).to.deep.equal([]);
    const heads = (await lines(['copies', s.requestId], member)).filter((c) => (c.adoption as Json).sourceVersion === version);
    expect(heads.map((c) => c.currentData)).to.deep.equal([{ givenName: 'Ann', familyName: 'Sample' }]);
  });

  it("events tail prints the feed's events as NDJSON; --types filters; with --follow it polls until SIGINT", async () => {
    const events = await lines(['events', 'tail'], member);
    const types = new Set(events.map((e) => e.type));
    for (const type of ['request.accepted', 'copy.kept', 'copy.corrected', 'proposal.opened']) expect(types).to.include(type);
    expect(events.every((e) => e.organizationId === s.organizationId && typeof e.id === 'string')).to.equal(true);

    const corrections = await lines(['events', 'tail', '--types', 'copy.corrected'], member);
    expect(corrections.map((e) => e.id)).to.deep.equal(events.filter((e) => e.type === 'copy.corrected').map((e) => e.id));

    const follow = start(['events', 'tail', '--follow', '--interval', '0.2'], member);
    await until(async () => parse(follow.stdout()).length >= events.length);
    await new Promise((r) => setTimeout(r, 500));
    expect(follow.child.exitCode, 'still following once caught up').to.equal(null);
    follow.child.kill('SIGINT');
    const stopped = await follow.result;
    expect(stopped.code, stopped.stderr).to.equal(0);
    expect(parse(stopped.stdout).map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
    expect(stopped.stderr).to.match(/resume with --after \S+/);
  });

  it('webhooks: add prints the secret once, list shows the webhook, test reaches the receiver and the delivery log shows it, retry sends it again, remove deletes it', async () => {
    const hooks = await receiver();
    try {
      const [created] = await lines(['webhooks', 'add', hooks.url, '--events', 'copy.kept,copy.corrected', '--description', 'CLI'], member);
      expect(created!.secret).to.match(/^whsec_/);
      const webhookId = (created!.webhook as Json).webhookId as string;
      const listed = await lines(['webhooks', 'list'], member);
      expect(listed.map((w) => ({ webhookId: w.webhookId, eventTypes: w.eventTypes, description: w.description }))).to.deep.equal([
        { webhookId, eventTypes: ['copy.kept', 'copy.corrected'], description: 'CLI' },
      ]);
      expect(listed[0]).not.to.have.property('secret');

      const [test] = await lines(['webhooks', 'test', webhookId], member);
      const eventId = test!.eventId as string;
      await eventually(hooks.delivered, (d) => d.some((e) => e.id === eventId && e.type === 'webhook.test'), 'the test event delivered');
      const log = await eventually(
        () => lines(['webhooks', 'deliveries', webhookId], member),
        (entries) => entries.length === 1,
        'the delivery logged',
      );
      expect(log[0]).to.include({ eventId, eventType: 'webhook.test', attempt: 1, status: 'succeeded', responseStatus: 204 });

      expect(await lines(['webhooks', 'retry', webhookId, eventId], member)).to.deep.equal([{ eventId }]);
      await eventually(
        () => lines(['webhooks', 'deliveries', webhookId], member),
        (entries) => entries[0]?.attempt === 2,
        'the retry logged',
      );

      expect(await lines(['webhooks', 'remove', webhookId], member)).to.deep.equal([{ webhookId, deleted: true }]);
      expect(await lines(['webhooks', 'list'], member)).to.deep.equal([]);
    } finally {
      await hooks.close();
    }
  });

  it('sync --state through a pipe prints each step and then a summary as NDJSON; a second run keeps and adopts nothing', async () => {
    const state = join(dir, 'sync.json');
    const version = await s.publish({ givenName: 'Ann', familyName: 'Synced' });
    const first = await lines(['sync', '--state', state], member);
    const summary = first.at(-1)!;
    expect(first.slice(0, -1).map((step) => step.phase)).to.include.members(['feed', 'request', 'decided']);
    expect(summary).to.include({ phase: 'summary', kept: 0, adopted: 1, dismissed: 0 });
    const view = (summary.view as Record<string, { held: Json[] }>)[s.requestId]!;
    expect(view.held.map((h) => ({ sourceVersion: h.sourceVersion, data: h.data }))).to.deep.equal([
      { sourceVersion: version, data: { givenName: 'Ann', familyName: 'Synced' } },
    ]);

    const second = await lines(['sync', '--state', state], member);
    expect(second.at(-1)).to.include({ phase: 'summary', kept: 0, adopted: 0, dismissed: 0 });
  });
});

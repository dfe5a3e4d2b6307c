import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { mainBackend } from '../support/databases.js';
import { startTestService, type TestService } from './support/service.js';

/**
 * A client's keep → correct → proposal logic, written against the generated types only: it reads the
 * fields the flow needs (copy.currentData, proposal.newVersion, the correction's orgVersion...) and
 * switches on the codes a keep's 403 can carry, so it compiles only if the document types them.
 */
const CLIENT = `
import type { components, paths } from './api.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Keep = paths['/org/v1/requests/{requestId}/slots/{slotId}/adopt']['post'];
type Correct = paths['/org/v1/requests/{requestId}/slots/{slotId}/correct']['post'];
type Copies = paths['/org/v1/requests/{requestId}/copies']['get'];
type Proposals = paths['/org/v1/requests/{requestId}/proposals']['get'];
type AdoptProposal = paths['/org/v1/requests/{requestId}/proposals/{proposalId}/adopt']['post'];
type Copy = components['schemas']['Copy'];
type Adoption = components['schemas']['Adoption'];

/** What the organization uses today: currentData of the newest adoption per slot and participant. */
export function today(copies: Json<Copies['responses'][200]>['copies']): Map<string, unknown> {
  const newest = new Map<string, Copy>();
  for (const c of copies) {
    const key = c.adoption.slotId + '/' + (c.participant?.alias ?? 'own');
    if ((newest.get(key)?.adoption.sourceVersion ?? 0) < c.adoption.sourceVersion) newest.set(key, c);
  }
  return new Map([...newest].map(([key, c]) => [key, c.currentData]));
}

/** The body of a correction of what a keep kept, from the copies read after it. */
export function correction(
  kept: Json<Keep['responses'][200]>,
  copies: readonly Copy[],
  data: { [field: string]: unknown },
): Correct['requestBody']['content']['application/json'] {
  const adoption: Adoption | undefined = kept.adoptions[0];
  const copy = copies.find((c) => c.adoption.adoptionId === adoption?.adoptionId);
  if (!adoption || !copy) throw new Error('nothing kept');
  return {
    sourceResourceId: adoption.sourceResourceId,
    expectedSourceVersion: adoption.sourceVersion,
    expectedOrgVersion: copy.currentOrgVersion,
    data,
  };
}

/** The next correction's expectedOrgVersion. */
export const nextExpected = (corrected: Json<Correct['responses'][200]>): number => corrected.orgVersion;

/** A proposal worth adopting: a newer version of the record the organization holds. */
export function worthAdopting(p: Json<Proposals['responses'][200]>['proposals'][number], held: Adoption): boolean {
  return p.resourceId === held.sourceResourceId && p.newVersion > held.sourceVersion && p.itemKind === 'schema';
}

export const adoptedState = (a: Json<AdoptProposal['responses'][200]>): 'pending' | 'materialized' => a.state;

/** Every code a keep's 403 can carry, handled: one more in the document and this stops compiling. */
export function keepRefused(problem: Keep['responses'][403]['content']['application/problem+json']): string {
  switch (problem.code) {
    case 'forbidden':
      return 'ask for request_manage';
    case 'participant_ineligible':
      return 'the recipient no longer answers for the party';
    case 'adoption_refused':
      return 'nothing of the slot could be kept';
  }
}

// @ts-expect-error a keep's 403 never carries version_conflict
export const never: Keep['responses'][403]['content']['application/problem+json']['code'] = 'version_conflict';
export const conflict: Correct['responses'][409]['content']['application/problem+json']['code'] = 'version_conflict';
`;

/** Generates api.d.ts from `document` beside the client, and type-checks the client: its errors, as text. */
async function compiled(dir: string, document: URL | OpenAPI3): Promise<string[]> {
  await writeFile(join(dir, 'api.d.ts'), astToString(await openapiTS(document)));
  await writeFile(join(dir, 'client.ts'), CLIENT);
  const program = ts.createProgram([join(dir, 'client.ts')], {
    strict: true,
    noImplicitReturns: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? `${d.file.fileName.slice(dir.length + 1)}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe(`a client generated from GET /openapi.json by openapi-typescript compiles the keep → correct → proposal flow (R-DOCS-08, C§12; ${mainBackend})`, function () {
  this.timeout(120_000);
  let service: TestService;
  let dir: string;

  before(async () => {
    service = await startTestService({ domain: {} });
    dir = await mkdtemp(join(tmpdir(), 'dss-openapi-client-'));
  });
  after(async () => {
    await service?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the types generated from the live document type-check a client that reads every field of the flow, with no hand-written type', async function () {
    expect(await compiled(dir, new URL(`${service.url}/openapi.json`))).to.deep.equal([]);
  });

  it('the same client does not compile against a document missing copy.currentData and proposal.newVersion', async function () {
    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as OpenAPI3 & {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> };
    };
    const { Copy, Proposal } = document.components.schemas;
    delete Copy!.properties.currentData;
    delete Proposal!.properties.newVersion;
    Proposal!.required = Proposal!.required.filter((name) => name !== 'newVersion');
    const errors = await compiled(dir, document);
    expect(errors.join('\n')).to.contain("'currentData'").and.to.contain("'newVersion'");
  });
});

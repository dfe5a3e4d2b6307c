import { forEachSubschema, isSchemaObject, pointerSegment } from './dialect.js';
import type { Schema, SchemaObject } from './dialect.js';
import { ResourceIndex } from './resources.js';
import type { ExternalSchemas, Location } from './resources.js';
import { schemaInvalid, schemaNotFound } from './results.js';
import type { SchemaFailure } from './results.js';
import { strictProblems } from './strict-checks.js';
import type { StrictOptions } from './strict-checks.js';

/** Where a `$dynamicRef` lands before the dynamic scope is consulted, and the anchor it may rebind. */
export type DynamicTarget = { readonly initial: Location; readonly anchor: string | null };

/**
 * Forms Ajv evaluates wrongly without an error, found in the schema or anything it references:
 * `$dynamicRef` (ajv issues 1745, 1573), `unevaluated*` (contains and if annotations are lost,
 * some anyOf shapes) and a `__proto__` key in a keyword's map (Ajv skips it).
 */
export type AjvHazard = 'dynamicRef' | 'unevaluated' | 'protoKey';

/** A schema with every reference resolved, ready for either engine. */
export type SchemaGraph = {
  readonly root: Location;
  readonly index: ResourceIndex;
  readonly refs: WeakMap<SchemaObject, Location>;
  readonly dynamicRefs: WeakMap<SchemaObject, DynamicTarget>;
  readonly hazards: ReadonlySet<AjvHazard>;
};

export type GraphOptions = StrictOptions & {
  readonly external: ExternalSchemas;
  /** The retrieval URI of a schema without `$id`; relative references resolve against it. */
  readonly baseUri: string;
};

const MAX_REPORTED_PROBLEMS = 5;

export function buildGraph(schema: Schema, options: GraphOptions): SchemaGraph | SchemaFailure {
  const index = new ResourceIndex(options.external);
  const root = index.addDocument(options.baseUri, schema);
  const refs = new WeakMap<SchemaObject, Location>();
  const dynamicRefs = new WeakMap<SchemaObject, DynamicTarget>();
  const hazards = new Set<AjvHazard>();
  const problems: string[] = [];
  let notFound: string | null = null;

  const visit = (node: Schema, pointer: string): void => {
    if (!isSchemaObject(node)) return;
    problems.push(...strictProblems(node, pointer, options, options.external));
    const base = index.info(node)?.resource.uri ?? options.baseUri;
    if (typeof node.$ref === 'string') {
      const r = index.resolve(node.$ref, base);
      if (r.ok) refs.set(node, r.location);
      else if (r.kind === 'not-found') notFound ??= r.uri;
      else problems.push(`${r.message} at ${pointer}`);
    }
    if (typeof node.$dynamicRef === 'string') {
      hazards.add('dynamicRef');
      const r = index.resolve(node.$dynamicRef, base);
      if (r.ok) {
        const target = r.location.node;
        // The bookending rule: only a plain-name fragment landing on a matching $dynamicAnchor is dynamic.
        const dynamic =
          r.fragment !== null && !r.fragment.startsWith('/') && isSchemaObject(target) && target.$dynamicAnchor === r.fragment;
        dynamicRefs.set(node, { initial: r.location, anchor: dynamic ? r.fragment : null });
      } else if (r.kind === 'not-found') notFound ??= r.uri;
      else problems.push(`${r.message} at ${pointer}`);
    }
    if ('unevaluatedItems' in node || 'unevaluatedProperties' in node) hazards.add('unevaluated');
    for (const keyword of ['properties', 'patternProperties', 'dependentSchemas', 'dependentRequired']) {
      const map = node[keyword];
      if (isSchemaObject(map) && Object.prototype.hasOwnProperty.call(map, '__proto__')) hazards.add('protoKey');
    }
    forEachSubschema(node, (child, segments) => visit(child, `${pointer}/${segments.map(pointerSegment).join('/')}`));
  };

  // Documents grow while references pull in built-ins, the metaschema or (in tests) remotes.
  for (let i = 0; i < index.documents.length; i++) {
    const document = index.documents[i] as Location;
    visit(document.node, i === 0 ? '#' : `${document.info.resource.uri}#`);
  }
  problems.unshift(...index.problems);
  if (problems.length) return schemaInvalid(problems.slice(0, MAX_REPORTED_PROBLEMS).join('; '));
  if (notFound !== null) return schemaNotFound(notFound);
  return { root, index, refs, dynamicRefs, hazards };
}

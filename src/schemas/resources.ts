import uriModule from 'ajv/dist/runtime/uri.js';
import type { UriResolver } from 'ajv/dist/types/index.js';
import { forEachSubschema, isSchemaObject, SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS } from './dialect.js';
import type { Schema, SchemaObject } from './dialect.js';

// The same RFC 3986 resolver Ajv uses, so URIs normalize the way Ajv would normalize them.
const uri: UriResolver = (uriModule as unknown as { default?: UriResolver }).default ?? (uriModule as unknown as UriResolver);

/** A schema resource: a document root or a subschema with its own `$id`. */
export type Resource = {
  readonly uri: string;
  readonly root: Schema;
  readonly anchors: Map<string, SchemaObject>;
  readonly dynamicAnchors: Map<string, SchemaObject>;
};

export type NodeInfo = { readonly resource: Resource };
export type Location = { readonly node: Schema; readonly info: NodeInfo };

export type Resolution =
  | { readonly ok: true; readonly location: Location; readonly fragment: string | null }
  | { readonly ok: false; readonly kind: 'not-found' | 'invalid'; readonly uri: string; readonly message: string };

/** Finds documents the schema may reference by absolute URI: built-ins, the metaschema, test remotes. */
export type ExternalSchemas = (uri: string) => Schema | undefined;

export function normalizeUri(value: string): string {
  const serialized = uri.serialize(uri.parse(value));
  const hash = serialized.indexOf('#');
  return hash === -1 ? serialized : serialized.slice(0, hash);
}

export function resolveUri(base: string, ref: string): string {
  return uri.resolve(base, ref);
}

/**
 * Every resource, anchor and node of the documents one schema needs, so that `$ref` and
 * `$dynamicRef` resolve without Ajv's process-wide registry (one user's `$id` never leaks into
 * another user's compile) and without the network.
 */
export class ResourceIndex {
  private readonly resources = new Map<string, Resource>();
  private readonly infos = new WeakMap<SchemaObject, NodeInfo>();
  readonly documents: Location[] = [];
  readonly problems: string[] = [];

  constructor(private readonly external: ExternalSchemas) {}

  info(node: SchemaObject): NodeInfo | undefined {
    return this.infos.get(node);
  }

  addDocument(retrievalUri: string, schema: Schema): Location {
    if (isSchemaObject(schema)) {
      const known = this.infos.get(schema);
      if (known) {
        this.resources.set(normalizeUri(retrievalUri), known.resource);
        return { node: schema, info: known };
      }
    }
    const root = this.index(schema, normalizeUri(retrievalUri), null, '#');
    this.resources.set(normalizeUri(retrievalUri), root.resource);
    const location = { node: schema, info: root };
    this.documents.push(location);
    return location;
  }

  resolve(ref: string, base: string): Resolution {
    let full: string;
    try {
      full = resolveUri(base, ref);
    } catch {
      return { ok: false, kind: 'invalid', uri: ref, message: `$ref "${ref}" is not a valid URI reference` };
    }
    const hash = full.indexOf('#');
    const resourceUri = normalizeUri(hash === -1 ? full : full.slice(0, hash));
    const rawFragment = hash === -1 ? '' : full.slice(hash + 1);
    const resource = this.resources.get(resourceUri) ?? this.load(resourceUri);
    if (!resource) return { ok: false, kind: 'not-found', uri: full, message: 'schema not found' };
    let fragment: string;
    try {
      fragment = decodeURIComponent(rawFragment);
    } catch {
      return { ok: false, kind: 'invalid', uri: full, message: `$ref "${ref}" has a malformed fragment` };
    }
    if (fragment === '') return { ok: true, location: this.locate(resource.root, { resource }), fragment: null };
    if (fragment.startsWith('/')) return this.walkPointer(resource, fragment, full);
    const anchored = resource.anchors.get(fragment);
    if (!anchored) return { ok: false, kind: 'not-found', uri: full, message: 'schema not found' };
    return { ok: true, location: this.locate(anchored, { resource }), fragment };
  }

  private load(resourceUri: string): Resource | undefined {
    const schema = this.external(resourceUri);
    if (schema === undefined) return undefined;
    return this.addDocument(resourceUri, schema).info.resource;
  }

  private locate(node: Schema, fallback: NodeInfo): Location {
    return { node, info: (isSchemaObject(node) && this.infos.get(node)) || fallback };
  }

  private index(node: Schema, base: string, parent: Resource | null, pointer: string): NodeInfo {
    if (!isSchemaObject(node)) return { resource: parent ?? this.newResource(base, node, pointer) };
    let resource = parent;
    const id = node.$id;
    if (typeof id === 'string') {
      let resolved = base;
      try {
        resolved = normalizeUri(resolveUri(base, id));
      } catch {
        this.problems.push(`$id "${id}" at ${pointer} is not a valid URI reference`);
      }
      resource = this.newResource(resolved, node, pointer);
    } else if (resource === null) {
      resource = this.newResource(base, node, pointer);
    }
    const info: NodeInfo = { resource };
    this.infos.set(node, info);
    this.addAnchor(resource, node.$anchor, node, pointer, false);
    this.addAnchor(resource, node.$dynamicAnchor, node, pointer, true);
    forEachSubschema(node, (child, segments) => {
      this.index(child, resource.uri, resource, `${pointer}/${segments.join('/')}`);
    });
    return info;
  }

  private newResource(resourceUri: string, root: Schema, pointer: string): Resource {
    const resource: Resource = { uri: resourceUri, root, anchors: new Map(), dynamicAnchors: new Map() };
    if (this.resources.has(resourceUri)) this.problems.push(`duplicate schema identifier "${resourceUri}" at ${pointer}`);
    else this.resources.set(resourceUri, resource);
    return resource;
  }

  private addAnchor(resource: Resource, name: unknown, node: SchemaObject, pointer: string, dynamic: boolean): void {
    if (typeof name !== 'string') return;
    const existing = resource.anchors.get(name);
    if (existing && existing !== node) this.problems.push(`duplicate anchor "${name}" in "${resource.uri}" at ${pointer}`);
    resource.anchors.set(name, node);
    if (dynamic) resource.dynamicAnchors.set(name, node);
  }

  private walkPointer(resource: Resource, pointer: string, full: string): Resolution {
    type Place = 'schema' | 'list' | 'map' | 'data';
    let current: unknown = resource.root;
    let place: Place = 'schema';
    let info: NodeInfo = { resource };
    for (const raw of pointer.slice(1).split('/')) {
      const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(current)) {
        if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= current.length) return missing(full);
        current = current[Number(segment)];
      } else if (typeof current === 'object' && current !== null && Object.prototype.hasOwnProperty.call(current, segment)) {
        current = (current as Record<string, unknown>)[segment];
      } else {
        return missing(full);
      }
      place = next(place, segment);
      if (place === 'schema' && isSchemaObject(current as SchemaObject)) info = this.infos.get(current as SchemaObject) ?? info;
    }
    if (place !== 'schema' || !(typeof current === 'boolean' || isSchemaObject(current as SchemaObject))) {
      return { ok: false, kind: 'invalid', uri: full, message: `$ref "${full}" does not point to a schema` };
    }
    return { ok: true, location: { node: current as Schema, info }, fragment: pointer };

    function next(from: Place, segment: string): Place {
      if (from === 'list' || from === 'map') return 'schema';
      if (from === 'data') return 'data';
      if (SCHEMA_KEYWORDS.has(segment)) return 'schema';
      if (SCHEMA_ARRAY_KEYWORDS.has(segment)) return 'list';
      if (SCHEMA_MAP_KEYWORDS.has(segment)) return 'map';
      return 'data';
    }
  }
}

function missing(full: string): Resolution {
  return { ok: false, kind: 'not-found', uri: full, message: 'schema not found' };
}

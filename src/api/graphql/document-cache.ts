import type { DocumentNode, GraphQLError, Source } from 'graphql';

const CAPACITY = 1000;
/** Longer documents are parsed each time: a cache entry should be a client's operation, not a payload. */
const MAX_CACHED_CHARS = 8_000;

/**
 * Documents parsed and validated, by their text. Clients send the same few operations over and
 * over, with different variables; parsing and validating them again was about a tenth of a
 * publish's CPU. Only documents that parsed are kept, and only a clean validation is remembered.
 */
export class DocumentCache {
  private readonly parsed = new Map<string, DocumentNode>();
  private readonly valid = new WeakSet<DocumentNode>();

  parse(source: string | Source, parse: (source: string | Source) => DocumentNode): DocumentNode {
    const text = typeof source === 'string' ? source : source.body;
    const cached = this.parsed.get(text);
    if (cached) return cached;
    const document = parse(source);
    if (text.length <= MAX_CACHED_CHARS) {
      this.parsed.set(text, document);
      if (this.parsed.size > CAPACITY) this.parsed.delete(this.parsed.keys().next().value!);
    }
    return document;
  }

  validate(document: DocumentNode, validate: (document: DocumentNode) => readonly GraphQLError[]): readonly GraphQLError[] {
    if (this.valid.has(document)) return [];
    const errors = validate(document);
    if (errors.length === 0) this.valid.add(document);
    return errors;
  }
}

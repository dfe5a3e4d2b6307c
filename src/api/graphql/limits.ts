import {
  GraphQLError,
  Kind,
  Lexer,
  parse,
  Source,
  TokenKind,
  type ASTNode,
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** R-GQL-07: a query document nested deeper than 15 levels or selecting more than 200 fields is refused. */
export const MAX_QUERY_DEPTH = 15;
export const MAX_QUERY_FIELDS = 200;
/** Selections of any kind (fields, spreads, inline fragments) one operation may expand to. */
export const MAX_QUERY_COST = 1000;
/** Document mutations (create, validate, update, delete) one request may run: aliases multiply them. */
export const MAX_DOCUMENT_MUTATIONS = 10;
/**
 * Lexical tokens one document may hold, so parsing and graphql's own validation rules (some of
 * them super-linear in the number of fragments and selections) only ever see a bounded document.
 */
export const MAX_QUERY_TOKENS = 20_000;
/**
 * Brackets of any kind (selection sets, arguments, list and object values) one document may nest:
 * graphql's parser recurses per level and overflows the stack a few thousand levels down.
 */
export const MAX_QUERY_NESTING = 64;

const OPENING: ReadonlySet<string> = new Set([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING: ReadonlySet<string> = new Set([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

const DOCUMENT_MUTATIONS: ReadonlySet<string> = new Set(['create', 'validate', 'update', 'delete']);

/**
 * One selection set with its fragments expanded. `mutations` counts document mutations under
 * `document` fields; `direct` counts the mutation-named fields of this very level, for the
 * `document` field around it to add.
 */
type Measure = {
  readonly depth: number;
  readonly fields: number;
  readonly cost: number;
  readonly mutations: number;
  readonly direct: number;
};

const badInput = (message: string, node?: ASTNode) =>
  new GraphQLError(message, { ...(node ? { nodes: [node] } : {}), extensions: { code: 'BAD_USER_INPUT' } });

/**
 * graphql's parse, after one flat pass of its lexer has bounded the tokens and the nesting; a
 * syntax error is bad input like any other.
 */
export function parseBounded(source: string | Source): DocumentNode {
  try {
    const document = typeof source === 'string' ? new Source(source) : source;
    boundTokens(document);
    return parse(document);
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    throw new GraphQLError(e.message, { source: e.source ?? null, positions: e.positions ?? null, extensions: { code: 'BAD_USER_INPUT' } });
  }
}

function boundTokens(source: Source): void {
  const lexer = new Lexer(source);
  let depth = 0;
  for (let tokens = 1, token = lexer.advance(); token.kind !== TokenKind.EOF; tokens++, token = lexer.advance()) {
    if (tokens > MAX_QUERY_TOKENS) throw badInput(`document holds more than ${MAX_QUERY_TOKENS} tokens`);
    if (OPENING.has(token.kind) && ++depth > MAX_QUERY_NESTING)
      throw badInput(`document is nested more than ${MAX_QUERY_NESTING} levels deep`);
    if (CLOSING.has(token.kind)) depth--;
  }
}

class Refused extends Error {
  constructor(readonly error: GraphQLError) {
    super(error.message);
  }
}

/**
 * The contract's limits on a parsed document, checked before (and without) graphql's own
 * validation. Each fragment is measured once, whatever the number of spreads naming it, so the
 * work is linear in the document; a cyclic or unknown spread is refused where it is met.
 * Fragments are measured on their own too, so no selection set graphql validates later expands
 * beyond the limits.
 */
export function queryLimitErrors(document: DocumentNode): readonly GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const measured = new Map<string, Measure | 'measuring'>();

  const fragment = (name: string, node: ASTNode): Measure => {
    const known = measured.get(name);
    if (known === 'measuring') throw new Refused(badInput(`fragment ${name} spreads itself`, node));
    if (known) return known;
    const definition = fragments.get(name);
    if (!definition) throw new Refused(badInput(`unknown fragment ${name}`, node));
    measured.set(name, 'measuring');
    const m = within(measure(definition.selectionSet), definition);
    measured.set(name, m);
    return m;
  };

  const measure = (set: SelectionSetNode): Measure => {
    let depth = 0,
      fields = 0,
      cost = 0,
      mutations = 0,
      direct = 0;
    for (const s of set.selections) {
      let inner: Measure;
      if (s.kind === Kind.FIELD) {
        const below = s.selectionSet ? measure(s.selectionSet) : null;
        const counted = s.name.value === 'document' && below ? below.direct : 0;
        inner = {
          depth: (below?.depth ?? 0) + 1,
          fields: (below?.fields ?? 0) + 1,
          cost: (below?.cost ?? 0) + 1,
          mutations: (below?.mutations ?? 0) + counted,
          direct: DOCUMENT_MUTATIONS.has(s.name.value) ? 1 : 0,
        };
      } else {
        const below = s.kind === Kind.INLINE_FRAGMENT ? measure(s.selectionSet) : fragment(s.name.value, s);
        inner = { ...below, cost: below.cost + 1 };
      }
      depth = Math.max(depth, inner.depth);
      fields += inner.fields;
      cost += inner.cost;
      mutations += inner.mutations;
      direct += inner.direct;
      // Stop at the first excess: totals only grow from here.
      within({ depth, fields, cost, mutations, direct }, s);
    }
    return { depth, fields, cost, mutations, direct };
  };

  const within = (m: Measure, node: ASTNode): Measure => {
    if (m.depth > MAX_QUERY_DEPTH)
      throw new Refused(badInput(`query is nested ${m.depth} levels deep; at most ${MAX_QUERY_DEPTH} are allowed`, node));
    if (m.fields > MAX_QUERY_FIELDS) throw new Refused(badInput(`query selects more than ${MAX_QUERY_FIELDS} fields`, node));
    if (m.cost > MAX_QUERY_COST) throw new Refused(badInput(`query expands to more than ${MAX_QUERY_COST} selections`, node));
    if (m.mutations > MAX_DOCUMENT_MUTATIONS)
      throw new Refused(badInput(`a request may run at most ${MAX_DOCUMENT_MUTATIONS} document mutations`, node));
    return m;
  };

  const check = (d: DefinitionNode) => {
    if (d.kind === Kind.OPERATION_DEFINITION) within(measure(d.selectionSet), d);
    else if (d.kind === Kind.FRAGMENT_DEFINITION) fragment(d.name.value, d);
  };
  try {
    for (const d of document.definitions) check(d);
    return [];
  } catch (e) {
    if (e instanceof Refused) return [e.error];
    throw e;
  }
}

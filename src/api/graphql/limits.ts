import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';

/** Contract §5: a query document nested deeper than 15 levels or selecting more than 200 fields is refused. */
export const MAX_QUERY_DEPTH = 15;
export const MAX_QUERY_FIELDS = 200;

type Measure = { depth: number; fields: number };

/**
 * Measures each operation with its fragments expanded, so a fragment cannot hide depth or
 * multiply fields. A fragment cycle is left to graphql's own NoFragmentCycles rule.
 */
export function queryLimits(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);

  const measure = (set: SelectionSetNode, depth: number, seen: ReadonlySet<string>): Measure => {
    let result: Measure = { depth, fields: 0 };
    for (const s of set.selections) {
      let inner: Measure | null = null;
      if (s.kind === Kind.FIELD) {
        inner = s.selectionSet ? measure(s.selectionSet, depth + 1, seen) : { depth: depth + 1, fields: 0 };
        inner = { depth: inner.depth, fields: inner.fields + 1 };
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        inner = measure(s.selectionSet, depth, seen);
      } else {
        const fragment = fragments.get(s.name.value);
        if (fragment && !seen.has(s.name.value)) inner = measure(fragment.selectionSet, depth, new Set([...seen, s.name.value]));
      }
      if (inner) result = { depth: Math.max(result.depth, inner.depth), fields: result.fields + inner.fields };
      if (result.fields > MAX_QUERY_FIELDS) return result;
    }
    return result;
  };

  return {
    OperationDefinition(node) {
      const m = measure(node.selectionSet, 0, new Set());
      if (m.depth > MAX_QUERY_DEPTH) {
        context.reportError(new GraphQLError(`query is nested ${m.depth} levels deep; at most ${MAX_QUERY_DEPTH} are allowed`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT' } }));
      }
      if (m.fields > MAX_QUERY_FIELDS) {
        context.reportError(new GraphQLError(`query selects more than ${MAX_QUERY_FIELDS} fields`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT' } }));
      }
    },
  };
}

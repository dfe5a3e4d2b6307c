import { isInputObjectType, isListType, isNonNullType, type GraphQLArgument, type GraphQLInputType } from 'graphql';
import { jsonProblem, textProblem, type TextKind } from '../fields.js';

type TextRule = { readonly kind: TextKind; readonly maxLength: number };

/**
 * String inputs with a rule of their own, by `Input.field` or `Type.field(argument)`. Any other
 * String is one line of at most 1000 characters, so a field added to the SDL cannot escape the
 * rules (R-LIM-04, R-LIM-05); a service may bound it further (an entity name, an address).
 */
const TEXT_RULES: Readonly<Record<string, TextRule>> = {
  'RegisterInput.displayName': { kind: 'line', maxLength: 200 },
  'DocumentInput.name': { kind: 'line', maxLength: 200 },
  'DocumentInput.description': { kind: 'free', maxLength: 10_000 },
  'DocumentInput.schemaRef': { kind: 'line', maxLength: 2000 },
  'DocumentUpdateInput.name': { kind: 'line', maxLength: 200 },
  'DocumentUpdateInput.description': { kind: 'free', maxLength: 10_000 },
  'DocumentUpdateInput.schemaRef': { kind: 'line', maxLength: 2000 },
};
const ANY_OTHER_STRING: TextRule = { kind: 'line', maxLength: 1000 };

/**
 * Why the arguments of `Type.field` break a rule, naming the argument by its path
 * (`input.displayName`, `input.data/items/0`), or null when they keep every rule.
 */
export function argumentsProblem(
  owner: string,
  args: readonly GraphQLArgument[],
  values: Readonly<Record<string, unknown>>,
): string | null {
  for (const arg of args) {
    const problem = inputProblem(arg.type, values[arg.name], arg.name, `${owner}(${arg.name})`);
    if (problem) return problem;
  }
  return null;
}

/** `rule` names the String's entry in TEXT_RULES. ID, Boolean, Int and enums GraphQL has checked already. */
function inputProblem(type: GraphQLInputType, value: unknown, path: string, rule: string): string | null {
  if (value === null || value === undefined) return null;
  if (isNonNullType(type)) return inputProblem(type.ofType, value, path, rule);
  if (isListType(type)) {
    // Coerced already: a single value sent for a list arrives as a list of one.
    for (const [i, item] of (value as unknown[]).entries()) {
      const problem = inputProblem(type.ofType, item, `${path}[${i}]`, rule);
      if (problem) return problem;
    }
    return null;
  }
  if (isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) {
      const problem = inputProblem(
        field.type,
        (value as Record<string, unknown>)[field.name],
        `${path}.${field.name}`,
        `${type.name}.${field.name}`,
      );
      if (problem) return problem;
    }
    return null;
  }
  if (type.name === 'String' && typeof value === 'string') {
    const { kind, maxLength } = TEXT_RULES[rule] ?? ANY_OTHER_STRING;
    if (value.length > maxLength) return `${path} is longer than ${maxLength} characters`;
    const problem = textProblem(value, kind);
    return problem ? `${path} ${problem}` : null;
  }
  if (type.name === 'JSON') return jsonProblem(value, path);
  return null;
}

import { isInputObjectType, isListType, isNonNullType, type GraphQLArgument, type GraphQLInputType } from 'graphql';
import { textProblem, type TextKind } from '../fields.js';

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

/** U+0000 and lone surrogates: PostgreSQL stores neither in text nor in jsonb. */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

type Node = { readonly value: unknown; readonly parent: Node | null; readonly token: string };

/**
 * JSON is data: any character it can escape is kept, except what PostgreSQL cannot store, in a
 * string or a key; a number JSON cannot write back (1e400 read as Infinity) is refused too.
 * Walked without recursion and with paths built only for the answer, as data may nest deeply.
 */
function jsonProblem(value: unknown, path: string): string | null {
  const stack: Node[] = [{ value, parent: null, token: '' }];
  const at = (node: Node) => {
    const tokens: string[] = [];
    for (let n: Node | null = node; n?.parent; n = n.parent) tokens.unshift(n.token);
    return [path, ...tokens].join('/');
  };
  for (let node = stack.pop(); node; node = stack.pop()) {
    const v = node.value;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return `${at(node)} ${unstorable(v)}`;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `${at(node)} is a number out of range`;
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, parent: node, token: String(i) }));
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        if (UNSTORABLE.test(key)) return `a key of ${at(node)} ${unstorable(key)}`;
        stack.push({ value: item, parent: node, token: key.replaceAll('~', '~0').replaceAll('/', '~1') });
      }
    }
  }
  return null;
}

const unstorable = (text: string) => (text.includes('\u0000') ? 'contains U+0000' : 'contains a lone surrogate');

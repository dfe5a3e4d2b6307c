import { isDeepStrictEqual } from 'node:util';

/** One difference between two documents: a field added (+), removed (-) or changed (~), nested paths dotted. */
export type Change =
  | { readonly op: '+'; readonly path: string; readonly to: unknown }
  | { readonly op: '-'; readonly path: string; readonly from: unknown }
  | { readonly op: '~'; readonly path: string; readonly from: unknown; readonly to: unknown };

/** Field by field, descending into objects and arrays (indexes as path segments); fields in `before`'s order, then the new ones. */
export function diff(before: unknown, after: unknown, path = ''): Change[] {
  if (!(nested(before) && nested(after) && Array.isArray(before) === Array.isArray(after)))
    return isDeepStrictEqual(before, after) ? [] : [{ op: '~', path: path || '(document)', from: before, to: after }];
  const was = before as Record<string, unknown>;
  const is = after as Record<string, unknown>;
  return [...new Set([...Object.keys(was), ...Object.keys(is)])].flatMap((key): Change[] => {
    const at = path ? `${path}.${key}` : key;
    if (!Object.hasOwn(is, key)) return [{ op: '-', path: at, from: was[key] }];
    if (!Object.hasOwn(was, key)) return [{ op: '+', path: at, to: is[key] }];
    return diff(was[key], is[key], at);
  });
}

/** `~ familyName: "Example" -> "Sample"`, `+ middleName: "Jo"`, `- nickname: "Annie"`. */
export function describeChange(change: Change): string {
  const json = (value: unknown) => JSON.stringify(value) ?? 'undefined';
  if (change.op === '+') return `+ ${change.path}: ${json(change.to)}`;
  if (change.op === '-') return `- ${change.path}: ${json(change.from)}`;
  return `~ ${change.path}: ${json(change.from)} -> ${json(change.to)}`;
}

const nested = (value: unknown): boolean => typeof value === 'object' && value !== null;

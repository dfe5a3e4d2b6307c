/**
 * Source versions as sorted, disjoint, inclusive ranges, no two of them touching: a copy chain that
 * keeps every version of its record, as an auto slot does, holds one pair however long it grows,
 * and so does a request's record pended version after version while the key is cold. Held as one
 * entry per version, a chain of some 6,000 keeps outgrew the fold cache, and every command on it
 * then read the whole chain, each keep's sealed content included.
 */
export type VersionSet = readonly (readonly [first: number, last: number])[];

export const noVersions: VersionSet = [];

export function hasVersion(set: VersionSet, version: number): boolean {
  return rangeHolding(set, version) !== -1;
}

/** The highest version of the set; 0 when it is empty. */
export const newestOf = (set: VersionSet): number => set.at(-1)?.[1] ?? 0;

/** The set with `version` in it: next to a range it extends it, between two it joins them. */
export function withVersion(set: VersionSet, version: number): VersionSet {
  if (hasVersion(set, version)) return set;
  const next = set.findIndex(([first]) => first > version);
  const at = next === -1 ? set.length : next;
  const before = set[at - 1];
  const after = set[at];
  const joinsBefore = before !== undefined && before[1] === version - 1;
  const joinsAfter = after !== undefined && after[0] === version + 1;
  const range = [joinsBefore ? before[0] : version, joinsAfter ? after[1] : version] as const;
  return [...set.slice(0, joinsBefore ? at - 1 : at), range, ...set.slice(joinsAfter ? at + 1 : at)];
}

/** The set without `version`: a range holding it shrinks, or splits in two around it. */
export function withoutVersion(set: VersionSet, version: number): VersionSet {
  const at = rangeHolding(set, version);
  if (at === -1) return set;
  const [first, last] = set[at]!;
  const parts: (readonly [number, number])[] = [];
  if (first < version) parts.push([first, version - 1]);
  if (version < last) parts.push([version + 1, last]);
  return [...set.slice(0, at), ...parts, ...set.slice(at + 1)];
}

/** Binary search: the index of the range that holds `version`, or -1. */
function rangeHolding(set: VersionSet, version: number): number {
  let low = 0;
  let high = set.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [first, last] = set[middle]!;
    if (version < first) high = middle - 1;
    else if (version > last) low = middle + 1;
    else return middle;
  }
  return -1;
}

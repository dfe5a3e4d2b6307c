/** What GET /org/v1/key answers. */
export type KeyState = { readonly state: 'warm'; readonly warmUntil: string } | { readonly state: 'cold' };

/** The read model's view of an organization's newest key events. */
export type KeyRecord = { readonly warmUntil: Date | null; readonly warmedAt: Date | null };

/**
 * When an organization key counts as warm (R-ORG-10, R-ORG-12), decided here once:
 * the newest KeyWarmed is not followed by a KeySealed, its `until` lies ahead, AND it was written
 * after this process started. The last clause is what "after a restart every organization key is
 * cold until a member signs in" means for a key held by events rather than in memory: a sign-in
 * before the restart does not count, the next one does. Instances that were already running when
 * a member signed in all see the key warm (they read the same event), so a drain may run on any
 * of them; an instance that restarts since sees it cold until the next sign-in.
 * The data key itself stays wrapped in the keyring at all times; warmth only gates its use.
 */
export function keyState(record: KeyRecord | null, now: Date, processStartedAt: Date): KeyState {
  if (!record?.warmUntil || !record.warmedAt) return { state: 'cold' };
  if (record.warmUntil.getTime() <= now.getTime()) return { state: 'cold' };
  if (record.warmedAt.getTime() < processStartedAt.getTime()) return { state: 'cold' };
  return { state: 'warm', warmUntil: record.warmUntil.toISOString() };
}

/** A steady rate with room for a burst: a token bucket of `burst` requests refilled at `perSecond`. */
export type Rate = { readonly perSecond: number; readonly burst: number };

export type FairUseLimits = {
  /** Per session: every token of one sign-in (renewed ones too) draws on one bucket. */
  readonly token: Rate;
  /** Per organization: all its members' tokens together. */
  readonly organization: Rate;
};

/** The bucket a session draws on: every token of one sign-in, and the one-time export links it made (R-EXP-06). */
export const sessionBucket = (audience: 'user' | 'org', sessionId: string): string => `${audience}:${sessionId}`;

/** Buckets kept per limit; past it the least recently used go (a bucket forgotten is a full one). */
export const BUCKETS_PER_LIMIT = 100_000;

/** Token buckets in this process's memory, least recently used first. */
class Buckets {
  private readonly levels = new Map<string, { level: number; at: number }>();

  constructor(private readonly rate: Rate) {}

  /** Seconds until `key` has a request's room again; 0 when it has it now. */
  wait(key: string, now: number): number {
    const level = this.level(key, now);
    return level >= 1 ? 0 : (1 - level) / this.rate.perSecond;
  }

  take(key: string, now: number): void {
    const level = this.level(key, now);
    this.levels.delete(key);
    this.levels.set(key, { level: level - 1, at: now });
    if (this.levels.size > BUCKETS_PER_LIMIT) this.levels.delete(this.levels.keys().next().value!);
  }

  private level(key: string, now: number): number {
    const bucket = this.levels.get(key);
    if (!bucket) return this.rate.burst;
    // A wall clock stepped back: refill from the new time on, rather than leave the bucket where it
    // was until the clock is back at its last request.
    if (now < bucket.at) bucket.at = now;
    return Math.min(this.rate.burst, bucket.level + ((now - bucket.at) / 1000) * this.rate.perSecond);
  }
}

/**
 * R-LIM-12: fair use of the organization plane and GraphQL. Every authenticated request draws one
 * request from its session's bucket and, with an organization token, from its organization's; an
 * empty bucket answers 429 before the request reaches the database, so a flood costs little and
 * leaves the other clients their share. Kept per instance, in memory: no round trip on the hot
 * path; a client spread over N instances gets N times the rate (docs/decisions.md).
 */
export class FairUse {
  private readonly tokens: Buckets;
  private readonly organizations: Buckets;

  /** `now` is the service's clock, as the tokens' expiry is judged by, so a test can step it. */
  constructor(
    limits: FairUseLimits,
    private readonly now: () => Date,
  ) {
    this.tokens = new Buckets(limits.token);
    this.organizations = new Buckets(limits.organization);
  }

  /** Seconds until `session` (and `organizationId`) has room for a request, counting nothing; 0 when it has. */
  wait(session: string, organizationId: string | null): number {
    const now = this.now().getTime();
    return Math.max(this.tokens.wait(session, now), organizationId === null ? 0 : this.organizations.wait(organizationId, now));
  }

  /**
   * Counts one request of `session` (and of `organizationId`) and answers 0, or answers how many
   * seconds to wait, having counted nothing: a refused request takes no room from either bucket.
   */
  admit(session: string, organizationId: string | null): number {
    const wait = this.wait(session, organizationId);
    if (wait > 0) return wait;
    const now = this.now().getTime();
    this.tokens.take(session, now);
    if (organizationId !== null) this.organizations.take(organizationId, now);
    return 0;
  }
}

import type { JsonObject } from '../envelope.js';

/** 100 years of 365 days, the longest retention (docs/rules.md R-LIM-01). */
const HUNDRED_YEARS_MS = 100 * 365 * 86_400_000;

/**
 * RequestAccepted version 1 → 2. Version 1 was written before durations were bounded, so its
 * retentionMs could exceed what the read models' bigint holds (P999999999Y once stopped the
 * requests read model). Version 2 promises at most 100 years: an older, longer one reads as 100
 * years, the same bound retentionMs() gives an old manifest's retention.
 */
export function acceptedWithBoundedRetention(data: JsonObject): JsonObject {
  const { retentionMs } = data;
  return typeof retentionMs === 'number' && retentionMs > HUNDRED_YEARS_MS ? { ...data, retentionMs: HUNDRED_YEARS_MS } : data;
}

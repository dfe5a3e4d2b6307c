import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** A key prefix no other suite (or earlier run) uses on the shared Redis. */
export function uniqueRedisPrefix(): string {
  return `dss-test-${randomBytes(6).toString('hex')}`;
}

/**
 * Deletes every key under `prefix`, whichever queues the suite created, so a shared Redis
 * is left as it was found.
 */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

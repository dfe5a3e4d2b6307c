/** The SQL job queue's statements (schema in schema.sql); durations travel as milliseconds. */

/** $6: the delay in milliseconds before the job is due (a waiting row with run_at ahead is delayed). */
export const enqueue = `
  INSERT INTO queue.jobs (queue_name, job_id, payload, max_attempts, backoff_ms, run_at)
  VALUES ($1, $2, $3::jsonb, $4, $5, now() + $6::double precision * interval '1 millisecond')
  ON CONFLICT (queue_name, job_id) DO NOTHING`;

/**
 * Takes up to $2 due jobs for $3 ms: waiting ones whose time has come, and active ones whose
 * worker stopped renewing its lease (it died), which counts as a spent attempt. A job whose worker
 * died during its last attempt has none left: the same statement ends it failed (`lapsed`), so a
 * poll is one round trip. The two sets are apart (attempts left or not), so no row is written twice.
 * SKIP LOCKED lets workers on other connections claim other rows at the same moment.
 *
 * Each set is read on its own, in jobs_due's order: a plain index scan marks the index entries of
 * rows it finds dead, so that the next poll skips them. Read together (an OR of both states), the
 * planner takes a bitmap scan, which never marks them, and every job's move from waiting to active
 * to completed leaves dead entries that every later poll would read again until a vacuum
 * (docs/decisions.md, "Job queue"). Each set is limited to $2 before the earliest $2 of both are
 * taken; the few it locked and leaves are free again when the statement ends.
 */
export const claim = `
  WITH lapsed AS (
    UPDATE queue.jobs
    SET state = 'failed', finished_at = now(), locked_until = NULL, lock_token = NULL,
        last_error = 'the worker stopped during the last attempt (its lease lapsed)'
    WHERE queue_name = $1 AND state = 'active' AND locked_until < now() AND attempt >= max_attempts),
  waiting AS (
    SELECT queue_name, job_id, run_at FROM queue.jobs
    WHERE queue_name = $1 AND state = 'waiting' AND run_at <= now()
    ORDER BY run_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED),
  abandoned AS (
    SELECT queue_name, job_id, run_at FROM queue.jobs
    WHERE queue_name = $1 AND state = 'active' AND locked_until < now() AND attempt < max_attempts
    ORDER BY run_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED),
  due AS (
    SELECT queue_name, job_id FROM (SELECT * FROM waiting UNION ALL SELECT * FROM abandoned) AS either
    ORDER BY run_at
    LIMIT $2)
  UPDATE queue.jobs j
  SET state = 'active',
      attempt = j.attempt + 1,
      locked_until = now() + $3::double precision * interval '1 millisecond',
      lock_token = gen_random_uuid(),
      last_error = CASE WHEN j.state = 'active' THEN 'the worker stopped during this attempt (its lease lapsed)'
                        ELSE j.last_error END
  FROM due
  WHERE j.queue_name = due.queue_name AND j.job_id = due.job_id
  RETURNING j.job_id, j.payload, j.attempt, j.lock_token::text AS lock_token`;

/** The token check keeps a worker that lost its lease from touching a job another worker took over. */
export const renewLease = `
  UPDATE queue.jobs SET locked_until = now() + $4::double precision * interval '1 millisecond'
  WHERE queue_name = $1 AND job_id = $2 AND lock_token = $3::uuid`;

export const complete = `
  UPDATE queue.jobs
  SET state = 'completed', finished_at = now(), locked_until = NULL, lock_token = NULL
  WHERE queue_name = $1 AND job_id = $2 AND lock_token = $3::uuid`;

/**
 * Retries after backoff_ms * 2^(attempt-1), or ends failed after the last attempt. The exponent
 * is capped so a large attempts setting cannot overflow the interval.
 */
export const fail = `
  UPDATE queue.jobs
  SET state = CASE WHEN attempt >= max_attempts THEN 'failed' ELSE 'waiting' END,
      run_at = CASE WHEN attempt >= max_attempts THEN run_at
                    ELSE now() + backoff_ms * power(2, LEAST(attempt - 1, 30)) * interval '1 millisecond' END,
      finished_at = CASE WHEN attempt >= max_attempts THEN now() END,
      last_error = $4, locked_until = NULL, lock_token = NULL
  WHERE queue_name = $1 AND job_id = $2 AND lock_token = $3::uuid
  RETURNING state, GREATEST(0, extract(epoch FROM run_at - now()) * 1000)::double precision AS retry_in_ms`;

export const depth = `
  SELECT count(*) FILTER (WHERE state = 'waiting' AND run_at <= now())::int AS waiting,
         count(*) FILTER (WHERE state = 'active')::int AS active,
         count(*) FILTER (WHERE state = 'waiting' AND run_at > now())::int AS delayed,
         count(*) FILTER (WHERE state = 'failed')::int AS failed
  FROM queue.jobs
  WHERE queue_name = $1 AND state <> 'completed'`;

export const status = `
  SELECT CASE WHEN state = 'waiting' AND run_at > now() THEN 'delayed' ELSE state END AS state, last_error
  FROM queue.jobs WHERE queue_name = $1 AND job_id = $2`;

export const forgetCompleted = `
  DELETE FROM queue.jobs WHERE state = 'completed' AND finished_at < now() - $1::double precision * interval '1 millisecond'`;

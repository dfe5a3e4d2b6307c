import { isIP } from 'node:net';
import { resolve } from 'node:path';

/** Everything the service reads from its environment, parsed and checked once at start. */
export type Config = {
  readonly production: boolean;
  readonly port: number;
  readonly baseUrl: string;
  readonly schemaBase: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly eventstoreUrl: string | null;
  readonly redisUrl: string | null;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  readonly jwtPrivateKey: string | null;
  readonly masterKey: string | null;
  readonly orgKeyWarmSeconds: number;
  readonly maxFileBytes: number;
  /** Uploads one user may stream at once on an instance; each holds up to MAX_FILE_BYTES in memory. */
  readonly maxUploadsPerUser: number;
  /** Uploads an instance streams at once. */
  readonly maxUploadsTotal: number;
  /** Failed verifications of sent codes per address per day before every verify is refused. */
  readonly otpDailyFailureCap: number;
  /** The same from one client address, before every verify of the address from it is refused; below otpDailyFailureCap. */
  readonly otpFailuresPerAddressAndClientPerDay: number;
  /** Codes one client address may have sent per hour. */
  readonly otpSendsPerClientPerHour: number;
  /** Failed code verifications one client address may make per hour. */
  readonly otpFailuresPerClientPerHour: number;
  /** Invitations one member may send per day, across all their organizations. */
  readonly invitesPerMemberPerDay: number;
  /** Invitations one organization may send per day. */
  readonly invitesPerOrgPerDay: number;
  /** Invitations one organization may send one address per day. */
  readonly invitesPerRecipientPerDay: number;
  /** R-LIM-16: requests one person may open (user.request.open) per day. */
  readonly opensPerUserPerDay: number;
  /** R-LIM-12: requests one session's tokens may make per second on an instance, and the burst above that rate. */
  readonly rateLimitTokenPerSecond: number;
  readonly rateLimitTokenBurst: number;
  /** R-LIM-12: requests all of one organization's member tokens may make per second on an instance, and the burst. */
  readonly rateLimitOrgPerSecond: number;
  readonly rateLimitOrgBurst: number;
  /** Express's `trust proxy`: false (the socket's peer is the client), a hop count, or the proxies' addresses. */
  readonly trustProxy: TrustProxy;
  /** Time one embedded-schema validation may take, compile included. */
  readonly validationBudgetMs: number;
  /** Embedded-schema validations that may wait for a worker; more are refused at once. */
  readonly validationQueueMax: number;
  /** Embedded-schema validations one caller may have waiting or running. */
  readonly validationMaxPerCaller: number;
  /** A LogCheckpointed (a summary of every stream's head) after every this many events of the log. */
  readonly logCheckpointEvery: number;
  readonly logLevel: string;
  /** Contract §10.12: the bearer token /metrics asks for; without it /metrics is open, or absent in production. */
  readonly metricsToken: string | null;
  /** inline: read models written in each append's transaction (SQL stores); async: from the log, after it. */
  readonly projections: 'inline' | 'async';
  /** R-HOOK-08: webhooks may reach private, loopback and link-local addresses, over http too (development only). */
  readonly webhookAllowPrivate: boolean;
  /** R-ORG-16: an app's redirect URIs may be plain http on a loopback address (RFC 8252 §7.3; development and native apps). */
  readonly oauthAllowLoopbackHttp: boolean;
  /** Contract §14: the consent receipts' signing key generation; raising it rotates the key, the earlier ones stay published. */
  readonly receiptKeyGeneration: number;
};

export type TrustProxy = false | number | readonly string[];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads every setting, collecting all problems so an operator fixes them in one go. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const text = (name: string): string | null => {
    const v = env[name]?.trim();
    return v ? v : null;
  };
  const int = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = text(name);
    if (v === null) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) {
      problems.push(`${name} must be an integer of at least ${min} (got "${v}")`);
      return fallback;
    }
    if (n > max) {
      problems.push(`${name} must be at most ${max} (got "${v}")`);
      return fallback;
    }
    return n;
  };
  const url = (name: string, protocols: readonly string[]): string | null => {
    const v = text(name);
    if (v === null) return null;
    try {
      const u = new URL(v);
      if (!protocols.includes(u.protocol)) problems.push(`${name} must use ${protocols.join(' or ')} (got ${u.protocol})`);
    } catch {
      problems.push(`${name} is not a URL`);
    }
    return v;
  };

  const production = env.NODE_ENV === 'production';
  const port = int('PORT', 3000, 0);
  const baseUrl = (url('BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const logLevel = text('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const config: Config = {
    production,
    port,
    baseUrl,
    schemaBase: (url('SCHEMA_BASE', ['http:', 'https:']) ?? `${baseUrl}/schemas`).replace(/\/+$/, ''),
    dataDir: dataDirOf(env),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    eventstoreUrl: url('EVENTSTORE_URL', ['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrentdb+discover:', 'kdb:', 'kdb+discover:']),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: text('MAIL_FROM') ?? 'Data Sharing <no-reply@localhost>',
    jwtPrivateKey: text('JWT_PRIVATE_KEY'),
    masterKey: text('MASTER_KEY'),
    // A window is at most 100 years (R-LIM-01): its end must be a date every store can hold.
    orgKeyWarmSeconds: int('ORG_KEY_WARM_SECONDS', 43_200, 1, 100 * 365 * 86_400),
    maxFileBytes: int('MAX_FILE_BYTES', 25 * 1024 * 1024, 1),
    maxUploadsPerUser: int('MAX_UPLOADS_PER_USER', 2, 1),
    maxUploadsTotal: int('MAX_UPLOADS_TOTAL', 8, 1),
    otpDailyFailureCap: int('OTP_DAILY_FAILURE_CAP', 30, 1),
    otpFailuresPerAddressAndClientPerDay: int('OTP_FAILURES_PER_ADDRESS_AND_CLIENT_PER_DAY', 10, 1),
    otpSendsPerClientPerHour: int('OTP_SENDS_PER_CLIENT_PER_HOUR', 50, 1),
    otpFailuresPerClientPerHour: int('OTP_FAILURES_PER_CLIENT_PER_HOUR', 20, 1),
    invitesPerMemberPerDay: int('INVITES_PER_MEMBER_PER_DAY', 100, 1),
    invitesPerOrgPerDay: int('INVITES_PER_ORG_PER_DAY', 500, 1),
    invitesPerRecipientPerDay: int('INVITES_PER_RECIPIENT_PER_DAY', 5, 1),
    opensPerUserPerDay: int('OPENS_PER_USER_PER_DAY', 20, 1),
    rateLimitTokenPerSecond: int('RATE_LIMIT_TOKEN_PER_SECOND', 50, 1),
    rateLimitTokenBurst: int('RATE_LIMIT_TOKEN_BURST', 100, 1),
    rateLimitOrgPerSecond: int('RATE_LIMIT_ORG_PER_SECOND', 200, 1),
    rateLimitOrgBurst: int('RATE_LIMIT_ORG_BURST', 400, 1),
    trustProxy: trustProxyOf(text('TRUST_PROXY'), problems),
    validationBudgetMs: int('VALIDATION_BUDGET_MS', 2000, 10),
    validationQueueMax: int('VALIDATION_QUEUE_MAX', 64, 1),
    validationMaxPerCaller: int('VALIDATION_MAX_PER_CALLER', 4, 1),
    logCheckpointEvery: int('LOG_CHECKPOINT_EVERY', 1000, 1, 1_000_000),
    logLevel,
    metricsToken: text('METRICS_TOKEN'),
    projections: projectionsOf(text('PROJECTIONS'), problems),
    webhookAllowPrivate: switchOf('WEBHOOK_ALLOW_PRIVATE', text('WEBHOOK_ALLOW_PRIVATE'), problems),
    oauthAllowLoopbackHttp: switchOf('OAUTH_ALLOW_LOOPBACK_HTTP', text('OAUTH_ALLOW_LOOPBACK_HTTP'), problems),
    receiptKeyGeneration: int('RECEIPT_KEY_GENERATION', 1, 1, 100),
  };

  if (production) {
    // Dev keys generated into DATA_DIR and a mail outbox file are for a laptop, not for production.
    if (!config.jwtPrivateKey) problems.push('JWT_PRIVATE_KEY is required in production (a private Ed25519 JWK or JWK set)');
    if (!config.masterKey) problems.push('MASTER_KEY is required in production (32 random bytes, base64)');
    if (!config.smtpUrl) problems.push('SMTP_URL is required in production (codes must reach people by mail)');
    // /metrics has no rate limit of its own: its token must not be guessable online.
    if (config.metricsToken !== null && config.metricsToken.length < 32)
      problems.push('METRICS_TOKEN needs at least 32 characters in production');
  }
  if (config.otpFailuresPerAddressAndClientPerDay >= config.otpDailyFailureCap) {
    // R-LIM-15: or one client address alone could spend an address's daily cap and keep its owner out.
    problems.push('OTP_FAILURES_PER_ADDRESS_AND_CLIENT_PER_DAY must be less than OTP_DAILY_FAILURE_CAP');
  }
  if (config.eventstoreUrl && config.projections === 'inline' && text('PROJECTIONS') !== null) {
    problems.push("PROJECTIONS=inline needs the log in the read models' database; with EVENTSTORE_URL they run async");
  }
  if (config.eventstoreUrl && !config.databaseUrl) {
    problems.push('EVENTSTORE_URL needs DATABASE_URL too: read models and checkpoints live in PostgreSQL');
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** DATA_DIR as the service resolves it, for a tool that needs nothing else of the configuration. */
export function dataDirOf(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR?.trim() || './data');
}

function projectionsOf(value: string | null, problems: string[]): 'inline' | 'async' {
  if (value === null || value === 'inline') return 'inline';
  if (value === 'async') return 'async';
  problems.push('PROJECTIONS must be inline or async');
  return 'inline';
}

const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: unset (or false, 0) trusts no proxy; a number trusts that many hops; otherwise a
 * comma-separated list of proxy addresses, CIDR ranges and express's named ranges. `true` is
 * refused: it would take the client address from whatever X-Forwarded-For a client sends.
 */
function trustProxyOf(value: string | null, problems: string[]): TrustProxy {
  if (value === null || value === 'false' || value === '0') return false;
  if (/^[0-9]+$/.test(value)) return Number(value);
  if (value === 'true') {
    problems.push(
      'TRUST_PROXY=true would let any client choose its address by sending X-Forwarded-For; ' +
        'give the number of proxies in front of the service or their addresses',
    );
    return false;
  }
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !PROXY_RANGES.includes(e) && !isAddressOrRange(e));
  if (bad.length) {
    problems.push(
      `TRUST_PROXY must be a hop count or a list of proxy addresses, CIDR ranges or ${PROXY_RANGES.join('/')} (not "${bad.join('", "')}")`,
    );
    return false;
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  return prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** An on/off setting: 1 or true on, 0 or false (or unset) off. */
function switchOf(name: string, value: string | null, problems: string[]): boolean {
  if (value === null || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  problems.push(`${name} must be 1 or 0 (got "${value}")`);
  return false;
}

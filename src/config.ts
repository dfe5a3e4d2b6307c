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
  /** Failed code verifications per address per day before every verify is refused. */
  readonly otpDailyFailureCap: number;
  /** Time one embedded-schema validation may take, compile included. */
  readonly validationBudgetMs: number;
  readonly logLevel: string;
};

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
  const int = (name: string, fallback: number, min: number): number => {
    const v = text(name);
    if (v === null) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) {
      problems.push(`${name} must be an integer of at least ${min} (got "${v}")`);
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
    dataDir: resolve(text('DATA_DIR') ?? './data'),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    eventstoreUrl: url('EVENTSTORE_URL', ['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrentdb+discover:', 'kdb:', 'kdb+discover:']),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: text('MAIL_FROM') ?? 'Data Sharing <no-reply@localhost>',
    jwtPrivateKey: text('JWT_PRIVATE_KEY'),
    masterKey: text('MASTER_KEY'),
    orgKeyWarmSeconds: int('ORG_KEY_WARM_SECONDS', 43_200, 1),
    maxFileBytes: int('MAX_FILE_BYTES', 25 * 1024 * 1024, 1),
    otpDailyFailureCap: int('OTP_DAILY_FAILURE_CAP', 20, 1),
    validationBudgetMs: int('VALIDATION_BUDGET_MS', 2000, 10),
    logLevel,
  };

  if (production) {
    // Dev keys generated into DATA_DIR and a mail outbox file are for a laptop, not for production.
    if (!config.jwtPrivateKey) problems.push('JWT_PRIVATE_KEY is required in production (a private Ed25519 JWK or JWK set)');
    if (!config.masterKey) problems.push('MASTER_KEY is required in production (32 random bytes, base64)');
    if (!config.smtpUrl) problems.push('SMTP_URL is required in production (codes must reach people by mail)');
  }
  if (config.eventstoreUrl && !config.databaseUrl) {
    problems.push('EVENTSTORE_URL needs DATABASE_URL too: read models and checkpoints live in PostgreSQL');
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}

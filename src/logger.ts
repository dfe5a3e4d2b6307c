import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs to stdout; secrets and personal data never go in, and these paths are cut if they do. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.code', '*.token', '*.email'], censor: '[redacted]' },
  });
}

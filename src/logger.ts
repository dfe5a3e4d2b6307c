import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

const EMAIL = /[^\s@"'<>()[\],;:]+@[^\s@"'<>()[\],;:]+\.[A-Za-z]{2,}/g;

/**
 * Error messages can quote data (a unique violation names the email): addresses are masked, and
 * only type, message and stack (which includes the causes) are kept, never a driver's `detail`.
 */
export function safeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const serialized = pino.stdSerializers.err(err);
  return {
    type: serialized.type,
    message: serialized.message.replace(EMAIL, '[email]'),
    stack: serialized.stack.replace(EMAIL, '[email]'),
    ...(err instanceof AggregateError ? { errors: err.errors.map(safeError) } : {}),
  };
}

/** JSON logs to stdout; secrets and personal data never go in, and these paths are cut if they do. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    serializers: { err: safeError },
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.code', '*.token', '*.email'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

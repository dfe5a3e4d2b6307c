/** One failure of the data, in Ajv's terms, so both engines answer alike. */
export type DataError = { readonly instancePath: string; readonly keyword: string; readonly message: string };

export type SchemaFailure = {
  readonly ok: false;
  readonly code: 'SCHEMA_INVALID' | 'SCHEMA_NOT_FOUND';
  readonly message: string;
  /** The reference that could not be resolved (SCHEMA_NOT_FOUND only). */
  readonly ref?: string;
  /** Set when the schema or data ran out of the time, memory or depth budget. */
  readonly budgetExceeded?: true;
};

export type DataFailure = {
  readonly ok: false;
  readonly code: 'DATA_INVALID';
  readonly message: string;
  readonly errors: readonly DataError[];
};

/** The pool refused the job at once: too many waiting, or too many of this caller's. */
export type ValidationBusy = { readonly ok: false; readonly code: 'BUSY'; readonly message: string };

export type ValidationResult = { readonly ok: true } | SchemaFailure | DataFailure | ValidationBusy;

export const TIME_BUDGET_MESSAGE = 'validation exceeded its time budget';
export const DEPTH_BUDGET_MESSAGE = 'validation exceeded its resource budget: nesting too deep';

export function schemaInvalid(message: string): SchemaFailure {
  return { ok: false, code: 'SCHEMA_INVALID', message };
}

export function schemaNotFound(ref: string): SchemaFailure {
  return { ok: false, code: 'SCHEMA_NOT_FOUND', message: 'schema not found', ref };
}

export function busy(message: string): ValidationBusy {
  return { ok: false, code: 'BUSY', message };
}

export function budgetExceeded(message: string): SchemaFailure {
  return { ok: false, code: 'SCHEMA_INVALID', message, budgetExceeded: true };
}

/** At most this many errors are reported: a hostile document could produce millions. */
export const MAX_REPORTED_ERRORS = 100;

export function dataInvalid(errors: readonly DataError[]): DataFailure {
  const reported = errors.slice(0, MAX_REPORTED_ERRORS);
  const first = reported[0];
  const message = first ? `${first.instancePath || '(root)'} ${first.message}` : 'data is invalid';
  return { ok: false, code: 'DATA_INVALID', message, errors: reported };
}

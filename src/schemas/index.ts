/** Built-in schemas and the validator of document data (spec §2.8, §4.2; contract §7, §8). */
export { SchemaValidator } from './validator.js';
export type { SchemaValidatorOptions } from './validator.js';
export { BUILTIN_NAMES, builtinId, loadBuiltins } from './builtins.js';
export type { BuiltinName, BuiltinSchema } from './builtins.js';
export type { DataError, DataFailure, SchemaFailure, ValidationResult } from './results.js';
export { TIME_BUDGET_MESSAGE } from './results.js';

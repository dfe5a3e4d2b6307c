/** Built-in schemas and the validator of document data (R-SCH-*, R-DOC-04). */
export { SchemaValidator } from './validator.js';
export type { SchemaValidatorOptions } from './validator.js';
export { BUILTIN_NAMES, builtinId, loadBuiltins } from './builtins.js';
export { servedSchemaBases } from './served-bases.js';
export type { BuiltinName, BuiltinSchema } from './builtins.js';
export type { DataError, DataFailure, SchemaFailure, ValidationResult } from './results.js';
export { TIME_BUDGET_MESSAGE } from './results.js';

import {
  createErrorHandler,
  getDefaultFormState,
  JUNK_OPTION_ID,
  ROOT_SCHEMA_PREFIX,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  withIdRefPrefix,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from '@rjsf/utils';
import type { JsonValue } from '../../../src/events/envelope';
import { createEvaluator } from '../../../src/schemas/evaluator/index';
import { FORMATS } from '../../../src/schemas/formats/index';
import { buildGraph } from '../../../src/schemas/graph';
import { resolveUri } from '../../../src/schemas/resources';
import type { DataError } from '../../../src/schemas/results';

type Check = (data: JsonValue) => DataError[];

/** The retrieval URI of a form's schema, and where react-jsonschema-form's references to its root schema land. */
const BASE = 'https://form.invalid/schema.json';
const ROOT = resolveUri(BASE, ROOT_SCHEMA_PREFIX);

/**
 * The service's own JSON Schema evaluator (src/schemas/evaluator: an interpreter, where Ajv would
 * generate code the pages' Content-Security-Policy forbids to run) as react-jsonschema-form's
 * validator, with the service's formats: a form says what the service will say. A schema this page
 * cannot read (it answers no check) leaves the verdict to the service, which is the truth anyway.
 */
class ServiceValidator implements ValidatorType<unknown, RJSFSchema> {
  /** Checks by root schema, then by the schema's text: react-jsonschema-form asks about the same few subschemas again and again. */
  private readonly checks = new WeakMap<object, Map<string, Check | null>>();

  private checkOf(schema: RJSFSchema, root: RJSFSchema): Check | null {
    let byText = this.checks.get(root);
    if (!byText) this.checks.set(root, (byText = new Map<string, Check | null>()));
    const text = JSON.stringify(schema);
    if (!byText.has(text)) {
      const graph = buildGraph(schema, {
        external: (uri) => (uri === ROOT ? root : undefined),
        baseUri: BASE,
        formats: new Set(FORMATS.keys()),
        contentEncodings: null,
      });
      byText.set(text, 'ok' in graph ? null : createEvaluator(graph, { formats: FORMATS, assertContent: false }));
    }
    return byText.get(text) ?? null;
  }

  rawValidation<Result = DataError>(schema: RJSFSchema, formData?: unknown): { errors?: Result[] } {
    const errors = this.checkOf(schema, schema)?.(asJson(formData)) ?? [];
    return { errors: errors as Result[] };
  }

  validateFormData(
    formData: unknown,
    schema: RJSFSchema,
    customValidate?: CustomValidator<unknown, RJSFSchema>,
    transformErrors?: ErrorTransformer<unknown, RJSFSchema>,
    uiSchema?: UiSchema<unknown, RJSFSchema>,
  ): ValidationData<unknown> {
    const found = (this.rawValidation<DataError>(schema, formData).errors ?? []).map(rjsfError);
    const errors = transformErrors ? transformErrors(found, uiSchema) : found;
    const errorSchema = toErrorSchema<unknown>(errors);
    if (!customValidate) return { errors, errorSchema };
    const filled = getDefaultFormState<unknown, RJSFSchema>(this, schema, formData, schema, true);
    const handler = customValidate(filled, createErrorHandler<unknown>(filled), uiSchema, errorSchema);
    return validationDataMerge({ errors, errorSchema }, unwrapErrorHandler<unknown>(handler));
  }

  /** `schema` is a part of `root` whose references to the root react-jsonschema-form has rewritten to ROOT. */
  isValid(schema: RJSFSchema, formData: unknown, root: RJSFSchema): boolean {
    if (schema.$id === JUNK_OPTION_ID) return false;
    // Without its own $id the part resolves those references against BASE, where ROOT is.
    const { $id: _own, ...part } = withIdRefPrefix(schema) as RJSFSchema;
    const check = this.checkOf(part, root);
    return check === null || check(asJson(formData)).length === 0;
  }
}

/** Form data as JSON: fields left empty (undefined) are absent, as they would be in the request. */
const asJson = (data: unknown): JsonValue => (data === undefined ? null : (JSON.parse(JSON.stringify(data)) as JsonValue));

/**
 * An error as react-jsonschema-form places it: at the field its data path names, and a missing
 * required property at that property's own field (as its Ajv validator does).
 */
function rjsfError({ instancePath, keyword, message }: DataError): RJSFValidationError {
  const at = instancePath
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const missing = keyword === 'required' ? /'(.*)'$/.exec(message)?.[1] : undefined;
  const property = missing === undefined ? at : at ? `${at}.${missing}` : missing;
  const params = missing === undefined ? {} : { missingProperty: missing };
  return { name: keyword, property, message, params, stack: `${property} ${message}` };
}

export const serviceValidator = new ServiceValidator();

// The form alone: the package's index also names a test registry built on a validator the pages do not use.
import Form from '@rjsf/core/lib/components/Form.js';
import type { ErrorSchema, UiSchema } from '@rjsf/utils';
import { useMemo, useState, type ReactNode } from 'react';
import { Failure, useAction } from '../actions';
import { Refused } from '../api';
import { WORD_BUTTONS } from './array-buttons';
import type { JsonSchema } from './schemas';
import { serviceValidator as validator } from './service-validator';
import { withTitles } from './titles';

/** One error of the service's validation (R-SCH-*): where in the data, and what is wrong. */
type DataError = { readonly instancePath: string; readonly message: string };

/**
 * The service's data errors as react-jsonschema-form's error tree, so each shows at its field; an
 * error at the root (a missing property is reported at its parent) shows above the form.
 */
export function errorTree(errors: readonly DataError[]): ErrorSchema {
  const tree: Record<string, unknown> = {};
  for (const { instancePath, message } of errors) {
    let node = tree;
    for (const raw of instancePath.split('/').slice(1)) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      node = (node[key] ??= {}) as Record<string, unknown>;
    }
    ((node.__errors ??= []) as string[]).push(message);
  }
  return tree as ErrorSchema;
}

/** The data errors a refusal of the service carries (GraphQL's extensions.errors or a problem's errors). */
export function dataErrorsOf(e: unknown): readonly DataError[] {
  if (!(e instanceof Refused)) return [];
  const errors = e.details.errors;
  return Array.isArray(errors) ? (errors as DataError[]).filter((x) => typeof x?.instancePath === 'string') : [];
}

/** Array buttons in words instead of icons of a font the pages do not ship (R-WEB-11). */
const TEMPLATES = { ButtonTemplates: WORD_BUTTONS };

export type SchemaFormProps = {
  readonly schema: JsonSchema;
  readonly initial?: unknown;
  /** The submit button's label: its verb (Publish, Share, Correct…), contract §11. */
  readonly submitLabel: string;
  /** Sends the data to the service; a refusal carrying data errors is shown at the fields. */
  readonly onSubmit: (data: unknown) => Promise<void>;
  readonly idPrefix?: string;
  readonly children?: ReactNode;
};

/** A form generated from a JSON Schema; what the service refuses shows at the field it names. */
export function SchemaForm({ schema, initial, submitLabel, onSubmit, idPrefix = 'doc', children }: SchemaFormProps) {
  const [data, setData] = useState<unknown>(initial);
  const [serverErrors, setServerErrors] = useState<ErrorSchema | undefined>(undefined);
  const { busy, error, run } = useAction();
  const shown = useMemo(() => withTitles(schema), [schema]);
  const context = useMemo(() => ({ idPrefix }), [idPrefix]);
  const uiSchema = useMemo<UiSchema>(
    () => ({ 'ui:submitButtonOptions': { submitText: submitLabel, props: { disabled: busy } } }),
    [submitLabel, busy],
  );

  const submit = (value: unknown) =>
    run(async () => {
      setServerErrors(undefined);
      try {
        await onSubmit(value);
      } catch (e) {
        const errors = dataErrorsOf(e);
        if (errors.length > 0) setServerErrors(errorTree(errors));
        throw e;
      }
    });

  return (
    <div className="schema-form">
      <Failure error={error} />
      <Form
        schema={shown}
        uiSchema={uiSchema}
        validator={validator}
        formData={data}
        idPrefix={idPrefix}
        formContext={context}
        templates={TEMPLATES}
        extraErrors={serverErrors}
        showErrorList={false}
        noHtml5Validate
        onChange={(e) => setData(e.formData)}
        onSubmit={(e) => void submit(e.formData)}
      >
        {children}
      </Form>
    </div>
  );
}

import { Fragment } from 'react';
import { schemaWords } from '../../../words';

/** A document's data as a person reads it: each field named in words, nested fields inside, lists as lists. */
export function DataView({ data }: { readonly data: unknown }) {
  if (Array.isArray(data))
    return (
      <ul className="person-data-list">
        {(data as unknown[]).map((item, i) => (
          <li key={i}>
            <DataView data={item} />
          </li>
        ))}
      </ul>
    );
  if (data !== null && typeof data === 'object')
    return (
      <dl className="person-data">
        {Object.entries(data as Record<string, unknown>).map(([key, value]) => (
          <Fragment key={key}>
            <dt>{schemaWords(key)}</dt>
            <dd>
              <DataView data={value} />
            </dd>
          </Fragment>
        ))}
      </dl>
    );
  if (typeof data === 'boolean') return <>{data ? 'Yes' : 'No'}</>;
  return <>{String(data)}</>;
}

import { CATALOGUE, FEED_EVENT_TYPES, type FeedEventType } from '../../events-feed/catalogue.js';
import { exactly, timestamp, uuid, type OpenApiObject } from './shapes.js';

const ID_MEANING = {
  requestId: 'The request',
  slotId: 'The slot of the request’s manifest version',
  resourceId: 'The person’s record (document or file) the slot holds',
  adoptionId: 'The keep (adoption) of the copy',
  proposalId: 'The proposal',
} as const;

const VERSION_MEANING = {
  sourceVersion: 'The version of the person’s record',
  orgVersion: 'The version of the organization’s copy',
} as const;

/** One catalogue type as its events are answered: exactly the fields its entry names. */
function eventSchema(type: FeedEventType): OpenApiObject {
  const entry = CATALOGUE[type];
  const versions = 'versions' in entry ? entry.versions : [];
  return {
    ...exactly(
      {
        id: uuid('Stable: the same on every read and after every rebuild; de-duplicate by it'),
        type: { const: type },
        occurredAt: timestamp('When the source event occurred'),
        organizationId: uuid('The organization whose feed it is'),
        ...Object.fromEntries(entry.names.map((name) => [name, uuid(ID_MEANING[name])])),
        ...('participant' in entry
          ? {
              participant: {
                type: 'string',
                pattern: '^p_[A-Za-z0-9_-]{22}$',
                description: 'The pairwise alias of the legal entity the record is of (absent: the person’s own)',
              },
            }
          : {}),
        ...(versions.length > 0
          ? {
              versions: exactly(
                Object.fromEntries(versions.map((v) => [v, { type: 'integer', minimum: 1, description: VERSION_MEANING[v] }])),
              ),
            }
          : {}),
      },
      ['participant'],
    ),
    title: type,
    description: entry.says,
  };
}

/** components.schemas.FeedEvent: one event of the feed and of a webhook's body, any type of the catalogue. */
export const feedEventSchema: OpenApiObject = {
  oneOf: FEED_EVENT_TYPES.map(eventSchema),
  description: 'One event of the catalogue (docs/events.md); `type` says which',
};

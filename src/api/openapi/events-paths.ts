import { FEED_EVENT_TYPES } from '../../events-feed/catalogue.js';
import { arrayOf, asMember, exactly, jsonAnswer, problems, queryParam, ref, tagged } from './components.js';

/** A page as the feed answered it (docs/events.md has an example of every type). */
const examplePage = {
  events: [
    {
      id: '48cda5a6-365c-e4b1-8a28-b29a0ed13bfe',
      type: 'request.accepted',
      occurredAt: '2026-11-29T01:40:02.329Z',
      organizationId: '2dbd959e-96a9-49d2-b14c-884bddfad8d9',
      requestId: '586905e8-b295-4cc1-a7d4-21547d688b63',
    },
    {
      id: 'd0060c3b-7c76-22c4-4eb6-d8515ea818ce',
      type: 'slot.granted',
      occurredAt: '2026-11-29T01:40:02.329Z',
      organizationId: '2dbd959e-96a9-49d2-b14c-884bddfad8d9',
      requestId: '586905e8-b295-4cc1-a7d4-21547d688b63',
      slotId: '9be21611-7832-4867-a0e5-85a8390b0f6d',
      resourceId: '54e1ab92-9bce-413d-829d-199db33d2d15',
      participant: 'p_hFKYTZgf0ON9NWQJ5wTF5r',
    },
    {
      id: 'b9cd7f98-6a15-7d2a-b32f-e6c11c77de23',
      type: 'record.updated',
      occurredAt: '2026-11-29T01:40:02.382Z',
      organizationId: '2dbd959e-96a9-49d2-b14c-884bddfad8d9',
      requestId: '586905e8-b295-4cc1-a7d4-21547d688b63',
      slotId: '9be21611-7832-4867-a0e5-85a8390b0f6d',
      resourceId: '54e1ab92-9bce-413d-829d-199db33d2d15',
      participant: 'p_hFKYTZgf0ON9NWQJ5wTF5r',
      versions: {
        sourceVersion: 2,
      },
    },
  ],
  nextCursor: 'ODU0LjEyNy4w',
};

/** The events feed (contract §12, R-FEED-*). */
export const eventsPaths = tagged('Events', {
  '/org/v1/events': {
    get: {
      operationId: 'listEvents',
      summary: 'The organization’s events after a cursor, in log order',
      description:
        'Thin events of the catalogue (docs/events.md): ids and versions, never personal data. Pass `nextCursor` as `after` to read ' +
        'on; a cursor stays valid for ever. Read on while `nextCursor` differs from the `after` sent; de-duplicate by `id`.',
      security: asMember('request_read'),
      parameters: [
        queryParam('after', 'Where the previous page ended: its nextCursor, as it was given; absent, from the first event'),
        queryParam('limit', 'How many events the page holds at most', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
        queryParam('types', `Only events of these types, comma-separated: ${FEED_EVENT_TYPES.join(', ')}`, {
          type: 'string',
          pattern: `^(${FEED_EVENT_TYPES.join('|').replaceAll('.', '\\.')})(,(${FEED_EVENT_TYPES.join('|').replaceAll('.', '\\.')}))*$`,
        }),
      ],
      responses: {
        '200': jsonAnswer(
          'A page of events',
          exactly({
            events: arrayOf(ref('FeedEvent'), 'In log order'),
            nextCursor: {
              type: ['string', 'null'],
              description: 'Where the next page starts: the `after` sent when nothing came since; null while the feed is empty',
            },
          }),
          examplePage,
        ),
        ...problems(401, 403, 400),
      },
    },
  },
});

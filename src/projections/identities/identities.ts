import { readFileSync } from 'node:fs';
import { eitherOf, type Recorded } from '../../events/decoder.js';
import type { UnpositionedEvent } from '../../events/envelope.js';
import { emailEvents, userEvents, type EmailClaimed } from '../../events/identity-events.js';
import { projector, writes } from '../projector.js';
import { insertInto } from '../set-based.js';

const claimed = insertInto('identities', ['identity_id', 'email', 'created_at']);
const claimedRow = (e: Recorded<EmailClaimed, UnpositionedEvent>) => ({
  identity_id: e.data.identityId,
  email: e.data.email,
  created_at: e.metadata.occurredAt,
});

export const identitiesProjector = projector({
  name: 'identities',
  version: 1,
  schemaSql: readFileSync(new URL('./identities.sql', import.meta.url), 'utf8'),
  events: eitherOf(emailEvents, userEvents),
  on: {
    EmailClaimed: writes((e) => [claimed.one(claimedRow(e))]),
    UserRegistered: writes((e) => [
      [
        `UPDATE identities SET registered_at = $2, display_name = $3 WHERE identity_id = $1`,
        [e.data.identityId, e.metadata.occurredAt, e.data.displayName],
      ],
    ]),
    SecondaryEmailVerified: writes((e) => [
      [
        `UPDATE identities SET verified_emails = verified_emails || to_jsonb($2::text) WHERE identity_id = $1 AND NOT verified_emails ? $2`,
        [e.data.identityId, e.data.email],
      ],
    ]),
    // The address and names go with the account; the address may then be claimed by a new one.
    AccountErased: writes((e) => [[`DELETE FROM identities WHERE identity_id = $1`, [e.data.identityId]]]),
  },
  setBased: {
    types: ['EmailClaimed'],
    statements: (run) => claimed.many(run.flatMap((e) => (e.type === 'EmailClaimed' ? [claimedRow(e)] : []))),
  },
});

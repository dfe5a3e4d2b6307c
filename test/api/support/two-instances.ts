import { generateMasterKey, generatePrivateJwk, serializeJwkSet } from '../../../src/identity/keys/index.js';
import { openSecondConnection, openTestDatabase, type TestDatabase } from '../../support/databases.js';
import type { RecordingMailer } from '../../support/recording-mailer.js';
import { startTestService, type TestService } from './service.js';

export type TwoInstances = { readonly t: TestDatabase; readonly a: TestService; readonly b: TestService; close(): Promise<void> };

/**
 * Two service instances on one fresh database, with one signing key and one master key between
 * them, as two processes of one deployment. On PostgreSQL the second has its own connections.
 */
export async function twoInstances(mailer: RecordingMailer): Promise<TwoInstances> {
  const t = await openTestDatabase();
  const env = { JWT_PRIVATE_KEY: serializeJwkSet([await generatePrivateJwk()]), MASTER_KEY: generateMasterKey().toString('base64') };
  const second: TestDatabase = t.url ? { db: openSecondConnection(t), url: t.url, drop: async () => undefined } : t;
  const a = await startTestService({ database: t, domain: { mailer, env } });
  const b = await startTestService({ database: second, domain: { mailer, env } });
  return {
    t,
    a,
    b,
    close: async () => {
      await b.close();
      await a.close();
      if (t.url) await b.t.db.close();
      await t.drop();
    },
  };
}

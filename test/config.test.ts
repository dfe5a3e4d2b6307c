import { expect } from 'chai';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration (contract 7)', () => {
  it('with nothing set, runs embedded on port 3000 with ./data', () => {
    const c = loadConfig({});
    expect(c).to.include({ port: 3000, databaseUrl: null, eventstoreUrl: null, redisUrl: null, smtpUrl: null, production: false });
    expect(c.dataDir).to.match(/\/data$/);
    expect(c.schemaBase).to.equal('http://localhost:3000/schemas');
    expect(c.orgKeyWarmSeconds).to.equal(43_200);
    expect(c.maxFileBytes).to.equal(25 * 1024 * 1024);
  });

  it('NODE_ENV=production without keys and mail refuses, naming every missing setting', () => {
    const error = (() => { try { loadConfig({ NODE_ENV: 'production' }); return null; } catch (e) { return e; } })();
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['JWT_PRIVATE_KEY', 'MASTER_KEY', 'SMTP_URL']) expect(message).to.contain(name);
  });

  it('refuses malformed values with the setting named', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).to.throw(ConfigError, /DATABASE_URL/);
    expect(() => loadConfig({ MAX_FILE_BYTES: '0' })).to.throw(ConfigError, /MAX_FILE_BYTES/);
    expect(() => loadConfig({ EVENTSTORE_URL: 'esdb://localhost:2113?tls=false' })).to.throw(ConfigError, /DATABASE_URL too/);
  });
});

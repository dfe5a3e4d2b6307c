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
    expect(c).to.include({
      trustProxy: false,
      otpDailyFailureCap: 30,
      otpFailuresPerAddressAndClientPerDay: 10,
      otpSendsPerClientPerHour: 50,
      otpFailuresPerClientPerHour: 20,
      invitesPerMemberPerDay: 100,
      invitesPerOrgPerDay: 500,
      invitesPerRecipientPerDay: 5,
      rateLimitTokenPerSecond: 50,
      rateLimitTokenBurst: 100,
      rateLimitOrgPerSecond: 200,
      rateLimitOrgBurst: 400,
    });
  });

  it('TRUST_PROXY takes a hop count or a list of proxy addresses, ranges and named ranges; true and anything else are refused', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).to.equal(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,2001:db8::/32, 192.0.2.1' }).trustProxy).to.deep.equal([
      'loopback',
      '10.0.0.0/8',
      '2001:db8::/32',
      '192.0.2.1',
    ]);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).to.throw(ConfigError, /TRUST_PROXY=true/);
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/1', 'loopback,', '-1'])
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).to.throw(ConfigError, /TRUST_PROXY/);
  });

  it('NODE_ENV=production without keys and mail refuses, naming every missing setting', () => {
    const error = (() => {
      try {
        loadConfig({ NODE_ENV: 'production' });
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['JWT_PRIVATE_KEY', 'MASTER_KEY', 'SMTP_URL']) expect(message).to.contain(name);
  });

  it('§10.12 NODE_ENV=production refuses a METRICS_TOKEN shorter than 32 characters', () => {
    const production = { NODE_ENV: 'production', JWT_PRIVATE_KEY: 'k', MASTER_KEY: 'k', SMTP_URL: 'smtp://mail.test' };
    expect(() => loadConfig({ ...production, METRICS_TOKEN: 'x'.repeat(31) })).to.throw(ConfigError, /METRICS_TOKEN/);
    expect(() => loadConfig({ ...production, METRICS_TOKEN: 'x'.repeat(32) })).to.not.throw(ConfigError, /METRICS_TOKEN/);
  });

  it('refuses malformed values with the setting named', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).to.throw(ConfigError, /DATABASE_URL/);
    expect(() => loadConfig({ MAX_FILE_BYTES: '0' })).to.throw(ConfigError, /MAX_FILE_BYTES/);
    for (const name of [
      'OTP_SENDS_PER_CLIENT_PER_HOUR',
      'OTP_FAILURES_PER_CLIENT_PER_HOUR',
      'INVITES_PER_MEMBER_PER_DAY',
      'INVITES_PER_ORG_PER_DAY',
      'INVITES_PER_RECIPIENT_PER_DAY',
      'OPENS_PER_USER_PER_DAY',
      'OTP_FAILURES_PER_ADDRESS_AND_CLIENT_PER_DAY',
      'RATE_LIMIT_TOKEN_PER_SECOND',
      'RATE_LIMIT_TOKEN_BURST',
      'RATE_LIMIT_ORG_PER_SECOND',
      'RATE_LIMIT_ORG_BURST',
    ]) {
      expect(() => loadConfig({ [name]: '0' }), name).to.throw(ConfigError, new RegExp(name));
    }
    expect(() => loadConfig({ ORG_KEY_WARM_SECONDS: '1e12' })).to.throw(ConfigError, /ORG_KEY_WARM_SECONDS must be at most 3153600000/);
    expect(loadConfig({ ORG_KEY_WARM_SECONDS: '3153600000' }).orgKeyWarmSeconds).to.equal(3_153_600_000);
    expect(loadConfig({}).logCheckpointEvery).to.equal(1000);
    expect(() => loadConfig({ LOG_CHECKPOINT_EVERY: '0' })).to.throw(ConfigError, /LOG_CHECKPOINT_EVERY must be an integer of at least 1/);
    expect(() => loadConfig({ LOG_CHECKPOINT_EVERY: '1000001' })).to.throw(ConfigError, /LOG_CHECKPOINT_EVERY must be at most 1000000/);
    expect(() => loadConfig({ EVENTSTORE_URL: 'esdb://localhost:2113?tls=false' })).to.throw(ConfigError, /DATABASE_URL too/);
  });
});

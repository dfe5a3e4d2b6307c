import { expect } from 'chai';
import { clientAddress } from '../../src/limits/client-address.js';

describe('the client address a per-client limit counts under', () => {
  it('is an IPv4 address as it is, also when it arrives IPv4-mapped', () => {
    expect(clientAddress('203.0.113.7')).to.equal('203.0.113.7');
    expect(clientAddress('::ffff:203.0.113.7')).to.equal('203.0.113.7');
  });

  it("is the /64 network of an IPv6 address, so stepping through one's own /64 gains nothing", () => {
    const one = clientAddress('2001:db8:1:2:aaaa::1');
    expect(one).to.equal('2001:db8:1:2::/64');
    for (const sibling of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002::', '2001:DB8:1:2::9%eth0'])
      expect(clientAddress(sibling), sibling).to.equal(one);
    expect(clientAddress('2001:db8:1:3::1')).to.not.equal(one);
    expect(clientAddress('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(clientAddress('1::2:3:4:5:6:7')).to.equal('1:0:2:3::/64');
    expect(clientAddress('::1')).to.equal('0:0:0:0::/64');
  });

  it('is a fixed key when express knows no address', () => {
    expect(clientAddress(undefined)).to.equal('unknown');
  });
});

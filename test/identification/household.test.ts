/** A household's other networks (household.ts): which networks of this network's visitors count. */
import { describe, expect, it } from 'vitest';
import { neighbourNetworks } from '../../src/service/identification/household.js';
import { MATCH } from '../../src/service/identification/matcher.js';
import { NETWORK_VISITORS_LISTED } from '../../src/service/store/visitors.js';

const opts = { limit: 3, poolNetworks: 2 };

describe('neighbourNetworks', () => {
  it('lists the other networks of this network\'s visitors, those most of them share first', () => {
    const neighbours = [
      { nets: ['v4:198.19.77', 'v4:198.18.40', 'v4:192.0.2'] },
      { nets: ['v4:198.19.77', 'v4:198.18.40'] },
      { nets: ['v4:198.19.77', 'v4:203.0.113'] },
    ];
    // The old home of two of them first; the network itself never.
    expect(neighbourNetworks('v4:198.19.77', neighbours, opts)).toEqual(['v4:198.18.40', 'v4:192.0.2', 'v4:203.0.113']);
  });

  it('leaves out the blocks a visitor hops through (a phone on carrier NAT) and keeps to the limit', () => {
    const phone = { nets: ['v4:198.19.77', 'v4:100.64.1', 'v4:100.64.2', 'v4:100.64.3', 'v4:198.18.40'] };
    expect(neighbourNetworks('v4:198.19.77', [phone], opts)).toEqual(['v4:198.18.40']);
    const many = { nets: ['v4:198.19.77', 'v4:10.1.1', 'v4:10.2.1', 'v4:10.3.1', 'v4:10.4.1', 'v4:10.5.1'] };
    expect(neighbourNetworks('v4:198.19.77', [many], opts)).toHaveLength(3);
  });

  it('has nothing to say of a network whose visitors were seen nowhere else', () => {
    expect(neighbourNetworks('v4:198.19.77', [{ nets: ['v4:198.19.77'] }, { nets: [] }], opts)).toEqual([]);
  });

  it("reads a home's visitors from the store's list of the network's visitors, which holds all of them", () => {
    // Households are read on networks with fewer than sharedNetworkVisitors visitors: the
    // store lists that many, so no neighbour is left out.
    expect(NETWORK_VISITORS_LISTED).toBeGreaterThanOrEqual(MATCH.sharedNetworkVisitors);
  });
});

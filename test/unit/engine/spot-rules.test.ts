import { describe, expect, it } from 'vitest';
import { bidPrice, canStart, protectionOver, selectReleases, type RunningSpot } from '../../../src/engine/spot-rules.js';
import type { SpotInstanceType } from '../../../src/model/policy.js';

const type = { name: 'ecs.x', payAsYouGo: 10 } as SpotInstanceType;
const spot = (name: string, bid: RunningSpot['bid'], startedAt = 0, pods = 1): RunningSpot => ({ name, bid, startedAt, pods, gpusPerPod: 1, lostGpuHours: 0 });

describe('spot rules', () => {
  it('prices a bid by its limit, or by its discount of the pay-as-you-go price', () => {
    expect(bidPrice({ priceLimit: 3.5 }, type)).toBe(3.5);
    expect(bidPrice({ discountLimit: 0.3 }, type)).toBe(3);
  });

  it('starts a job whose bid reaches the price and whose pods fit the free inventory', () => {
    expect(canStart(3, 3, 2, 2)).toBe(true);
    expect(canStart(2.9, 3, 1, 5)).toBe(false);
    expect(canStart(5, 3, 3, 2)).toBe(false);
  });

  it('protects a job until its protection period is over', () => {
    expect(protectionOver(0, 59, 60)).toBe(false);
    expect(protectionOver(0, 60, 60)).toBe(true);
  });

  it('releases unprotected jobs bidding below the price, then the lowest bids while the inventory is short', () => {
    const running = [spot('low', { priceLimit: 2 }), spot('mid', { priceLimit: 4 }), spot('high', { priceLimit: 9 }), spot('young', { priceLimit: 1 }, 100)];
    expect(selectReleases(type, running, 3, 10, 100, 50).map((r) => [r.job, r.cause])).toEqual([['low', 'price']]);
    expect(selectReleases(type, running, 1, 2, 100, 50).map((r) => [r.job, r.cause])).toEqual([
      ['low', 'inventory'],
      ['mid', 'inventory'],
    ]);
  });
});

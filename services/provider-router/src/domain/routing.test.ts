import { describe, expect, it } from 'vitest';
import {
  CLOSED_BREAKER,
  admitsOrder,
  breakerVerdict,
  recordFailure,
  recordSuccess,
  startTrial,
} from './breaker.js';
import { chooseRail } from './routing.js';
import type { Rail } from './rail.js';

const config = { threshold: 3, windowMs: 1000, cooldownMs: 500 };
const criteria = { environment: 'sandbox' as const, network: 'ORANGE_MONEY', currency: 'XAF', country: 'CM' };

function rail(id: string, overrides: Partial<Rail> = {}): Rail {
  return {
    _id: id,
    providerId: 'prv_1',
    transport: 'webhook',
    endpoint: 'https://p.example',
    sealedSecret: null,
    secretHint: null,
    networks: ['ORANGE_MONEY'],
    countries: ['CM'],
    currencies: ['XAF'],
    supportsPayout: false,
    environment: 'sandbox',
    priority: 10,
    status: 'ACTIVE',
    inService: true,
    certified: false,
    lastTest: null,
    breaker: CLOSED_BREAKER,
    breakerRev: 0,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const choose = (rails: Rail[], exclude: string[] = [], now = 0) =>
  chooseRail(rails, criteria, { exclude, now, breaker: config });

describe('chooseRail', () => {
  it("prefers rails certified on the order's channel, then the lower priority number, then the older rail", () => {
    const certifiedOn = (network: 'ORANGE_MONEY' | 'MTN_MOMO') => ({
      certifiedChannels: [{ network, country: 'CM', currency: 'XAF' as const }],
    });
    expect(
      choose([rail('a', { priority: 1 }), rail('b', { priority: 50, ...certifiedOn('ORANGE_MONEY') })]).rail
        ?._id,
    ).toBe('b');
    // A badge on another channel of the rail says nothing of this one.
    const wider = { networks: ['ORANGE_MONEY' as const, 'MTN_MOMO' as const] };
    expect(
      choose([rail('a', { priority: 1 }), rail('b', { priority: 50, ...wider, ...certifiedOn('MTN_MOMO') })])
        .rail?._id,
    ).toBe('a');
    expect(choose([rail('a', { priority: 9 }), rail('b', { priority: 2 })]).rail?._id).toBe('b');
    expect(choose([rail('b', { createdAt: '2025-02-01T00:00:00.000Z' }), rail('a')]).rail?._id).toBe('a');
  });

  it('keeps to ACTIVE rails of the environment, network, currency and country', () => {
    for (const overrides of [
      { status: 'TESTED' as const },
      { inService: false },
      { environment: 'live' as const },
      { networks: ['WAVE' as const] },
      { currencies: ['XOF' as const] },
      { countries: ['SN'] },
    ]) {
      expect(choose([rail('a', overrides)])).toMatchObject({
        rail: null,
        reason: expect.stringContaining('no ACTIVE rail'),
      });
    }
  });

  it('skips tried rails and open breakers, and says so', () => {
    const open = { failures: [0], openedAt: 0, trial: null };
    const choice = choose(
      [rail('a', { priority: 1 }), rail('b', { priority: 2, breaker: open }), rail('c', { priority: 3 })],
      ['a'],
      100,
    );
    expect(choice.rail?._id).toBe('c');
    expect(choice.reason).toContain('a already tried; b circuit breaker open');
    expect(choice.skipped).toEqual([
      { railId: 'a', reason: 'already tried' },
      { railId: 'b', reason: 'circuit breaker open' },
    ]);
    expect(choose([rail('a', { breaker: open })], [], 100)).toMatchObject({
      rail: null,
      reason: expect.stringContaining('circuit breaker open'),
      skipped: [{ railId: 'a', reason: 'circuit breaker open' }],
    });
  });

  it('names a half-open rail whose single trial is still in flight', () => {
    const trialInFlight = { failures: [0], openedAt: 0, trial: { orderKey: 'pexec_1', at: 600 } };
    expect(choose([rail('a', { breaker: trialInFlight })], [], 700)).toMatchObject({
      rail: null,
      skipped: [{ railId: 'a', reason: 'circuit breaker half-open, trial in flight' }],
    });
    expect(choose([rail('a', { breaker: { ...trialInFlight, trial: null } })], [], 700)).toMatchObject({
      rail: { _id: 'a' },
      halfOpenTrial: true,
      skipped: [],
    });
  });
});

describe('circuit breaker', () => {
  it('opens at the threshold within the window only', () => {
    let state = recordFailure(CLOSED_BREAKER, 0, config);
    state = recordFailure(state, 1500, config);
    state = recordFailure(state, 1600, config);
    expect(breakerVerdict(state, 1700, config)).toBe('closed');
    state = recordFailure(state, 1700, config);
    expect(breakerVerdict(state, 1800, config)).toBe('open');
    expect(admitsOrder(state, 1800, config)).toBe(false);
  });

  it('half-open admits one trial; failure reopens, success closes; a lost trial stops blocking after a cooldown', () => {
    const open = { failures: [0, 1, 2], openedAt: 2, trial: null };
    expect(breakerVerdict(open, 600, config)).toBe('half-open');
    const trial = startTrial(open, 'pexec_1', 600);
    expect(admitsOrder(trial, 700, config)).toBe(false);
    expect(admitsOrder(trial, 1100, config)).toBe(true);
    const reopened = recordFailure(trial, 700, config);
    expect(breakerVerdict(reopened, 800, config)).toBe('open');
    expect(recordSuccess()).toEqual(CLOSED_BREAKER);
  });
});

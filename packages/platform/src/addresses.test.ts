import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './addresses.js';

describe('isPrivateAddress', () => {
  it.each([
    '10.1.2.3',
    '127.0.0.1',
    '169.254.169.254',
    '172.20.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    'not-an-ip',
  ])('refuses %s', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(['41.202.219.1', '196.200.1.1', '2c0f:f8f0::1', '::ffff:41.202.219.1'])('allows %s', (address) =>
    expect(isPrivateAddress(address)).toBe(false),
  );
});

import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../zod-errors.js';
import {
  CustomerList,
  CustomerListQuery,
  CustomerProfile,
  CustomerStats,
  CustomerTransactions,
  CustomerTransactionsQuery,
  pageMeta,
} from './customer.js';

const profile = {
  id: '3f1c2a7e-9b1d-4c8e-8f2a-1b2c3d4e5f60',
  projectId: '6a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d',
  externalId: 'cust_1',
  email: 'awa@example.com',
  phone: '+237690000001',
  name: 'Awa',
  metadata: { tier: 'gold' },
  totalTransactions: 3,
  totalSpent: 15000,
  lastTransactionAt: '2025-01-31T12:00:00.000Z',
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-31T12:00:00.000Z',
};

describe('CustomerProfile', () => {
  it('accepts a full and a minimal profile', () => {
    expect(CustomerProfile.parse(profile)).toEqual(profile);
    const { externalId: _e, email: _m, phone: _p, name: _n, ...minimal } = profile;
    expect(CustomerProfile.parse({ ...minimal, lastTransactionAt: null })).toBeTruthy();
  });

  it.each([
    ['id', 'x'],
    ['projectId', 'x'],
    ['totalTransactions', 1.5],
    ['totalSpent', -1],
    ['metadata', null],
    ['createdAt', 'yesterday'],
    ['email', null],
  ])('rejects a bad %s', (field, value) => {
    expect(CustomerProfile.safeParse({ ...profile, [field]: value }).success).toBe(false);
  });
});

describe('CustomerListQuery', () => {
  it('applies the defaults', () => {
    expect(CustomerListQuery.parse({})).toEqual({
      page: 1,
      per_page: 20,
      sort_by: 'lastTransactionAt',
      sort_order: 'desc',
    });
  });

  it('accepts every sort field and coerces numbers', () => {
    for (const sort_by of ['lastTransactionAt', 'createdAt', 'totalSpent', 'totalTransactions', 'name']) {
      expect(
        CustomerListQuery.parse({ sort_by, sort_order: 'asc', page: '2', per_page: '100', search: 'awa' }),
      ).toMatchObject({ sort_by, page: 2, per_page: 100 });
    }
  });

  it.each([
    ['page', '0'],
    ['per_page', '0'],
    ['per_page', '101'],
    ['sort_by', 'email'],
    ['sort_order', 'up'],
    ['limit', '5'],
  ])('rejects %s=%j', (field, value) => {
    const result = CustomerListQuery.safeParse({ [field]: value });
    expect(fieldErrors(result.error!).map((f) => f.field)).toEqual([field]);
  });

  it('transactions query takes page and per_page', () => {
    expect(CustomerTransactionsQuery.parse({ page: '2' })).toEqual({ page: 2, per_page: 20 });
    expect(CustomerTransactionsQuery.safeParse({ sort_by: 'name' }).success).toBe(false);
  });
});

describe('list, transactions and stats envelopes', () => {
  it('CustomerList', () => {
    expect(CustomerList.parse({ data: [profile], meta: pageMeta(1, 20, 1) })).toBeTruthy();
    expect(pageMeta(2, 20, 41)).toEqual({ page: 2, per_page: 20, total: 41, total_pages: 3 });
    expect(pageMeta(1, 20, 0).total_pages).toBe(0);
    expect(
      CustomerList.safeParse({ data: [profile], meta: { page: 1, per_page: 20, total: 1 } }).success,
    ).toBe(false);
  });

  it('CustomerTransactions', () => {
    const item = {
      id: profile.id,
      token: 'pay_AbCdEfGhIjKlMnOpQrStUvWx',
      amount: 5000,
      currency: 'XAF',
      status: 'COMPLETED',
      paymentMethod: 'ORANGE_MONEY',
      createdAt: profile.createdAt,
      completedAt: profile.createdAt,
      failureCode: null,
      failureMessage: null,
    };
    expect(CustomerTransactions.parse({ data: [item], meta: pageMeta(1, 20, 1) })).toBeTruthy();
    expect(
      CustomerTransactions.safeParse({ data: [{ ...item, token: 'x' }], meta: pageMeta(1, 20, 1) }).success,
    ).toBe(false);
  });

  it('CustomerStats', () => {
    const stats = {
      totalCustomers: 10,
      newCustomersLast30Days: 2,
      activeCustomersLast30Days: 5,
      totalSpent: 100000,
      averageSpent: 10000,
      topCustomers: [profile],
    };
    expect(CustomerStats.parse(stats)).toEqual(stats);
    expect(CustomerStats.safeParse({ ...stats, topCustomers: undefined }).success).toBe(false);
    expect(CustomerStats.safeParse({ ...stats, totalCustomers: -1 }).success).toBe(false);
  });
});

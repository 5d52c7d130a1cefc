import { describe, expect, it } from 'vitest';
import { CustomerListQuery, CustomerTransactionsQuery, isAppError } from '@mmp/protocol';
import { parseQuery } from './queries.js';

function failure(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isAppError(error))
      return { code: error.code, status: error.status, message: error.message, fields: error.fields };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('parseQuery', () => {
  it('applies the documented defaults', () => {
    expect(parseQuery(CustomerListQuery, {})).toEqual({
      page: 1,
      per_page: 20,
      sort_by: 'lastTransactionAt',
      sort_order: 'desc',
    });
    expect(parseQuery(CustomerTransactionsQuery, { page: '3', per_page: '100' })).toEqual({
      page: 3,
      per_page: 100,
    });
  });

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: 'abc' }, 'page'],
    [{ per_page: '101' }, 'per_page'],
    [{ per_page: '0' }, 'per_page'],
    [{ per_page: '2.5' }, 'per_page'],
    [{ sort_by: 'amount' }, 'sort_by'],
    [{ sort_order: 'up' }, 'sort_order'],
    [{ page: ['1', '2'] }, 'page'],
    [{ limit: '5' }, 'limit'],
  ])('answers 400 invalid_request naming the parameter for %j', (query, field) => {
    const error = failure(() => parseQuery(CustomerListQuery, query));
    expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(error.message).toContain(field);
    expect(error.fields?.[0]?.field).toBe(field);
  });
});

import { describe, expect, it } from 'vitest';
import { isAppError } from '@mmp/protocol';
import { ListQuery, PageQuery, pageMeta, parseQuery } from './queries.js';

function failure(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, status: error.status, message: error.message, fields: error.fields };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('parseQuery', () => {
  it('applies the documented defaults', () => {
    expect(parseQuery(ListQuery, {})).toEqual({ page: 1, per_page: 20, sort_by: 'lastTransactionAt', sort_order: 'desc' });
    expect(parseQuery(PageQuery, { page: '3', per_page: '100' })).toEqual({ page: 3, per_page: 100 });
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
  ])('answers 400 invalid_request naming the parameter for %j', (query, field) => {
    const error = failure(() => parseQuery(ListQuery, query));
    expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(error.message).toContain(field);
    expect(error.fields?.[0]?.field).toBe(field);
  });
});

describe('pageMeta', () => {
  it('counts pages', () => {
    expect(pageMeta(1, 20, 0)).toEqual({ page: 1, per_page: 20, total: 0, total_pages: 0 });
    expect(pageMeta(2, 2, 5)).toEqual({ page: 2, per_page: 2, total: 5, total_pages: 3 });
  });
});

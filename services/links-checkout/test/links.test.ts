import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eventually } from '@mmp/platform/testing';
import { PROJECT, PUBLIC_URL, merchant, useHarness } from './harness.js';

type Link = Record<string, unknown> & { id: string; shortCode: string; status: string; usageCount: number };

const h = useHarness();

const create = (body: unknown, actor = merchant()) => h.ok<Link>('links.create', { body }, actor, 201);

describe('payment links: merchant operations', () => {
  it('creates a fixed-amount link with every field of the specification', async () => {
    const link = await create({
      name: 'T-shirt',
      description: 'Coton bio',
      amount: 7500,
      collectEmail: true,
      maxUses: 3,
    });
    expect(link.shortCode).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(link).toMatchObject({
      url: `${PUBLIC_URL}/pay/${link.shortCode}`,
      name: 'T-shirt',
      description: 'Coton bio',
      amount: 7500,
      currency: 'XAF',
      minAmount: null,
      maxAmount: null,
      status: 'ACTIVE',
      collectPhone: false,
      collectEmail: true,
      collectName: false,
      customFields: [],
      maxUses: 3,
      usageCount: 0,
      expiresAt: null,
    });
    expect(Date.parse(link.createdAt as string)).not.toBeNaN();
    expect(link.updatedAt).toBe(link.createdAt);
  });

  it('creates a variable-amount link with bounds and custom fields', async () => {
    const link = await create({
      name: 'Don',
      currency: 'XOF',
      minAmount: 500,
      maxAmount: 20000,
      customFields: [{ key: 'size', label: 'Taille', type: 'select', options: ['S', 'M'], required: true }],
    });
    expect(link).toMatchObject({ amount: null, minAmount: 500, maxAmount: 20000, currency: 'XOF' });
    expect(link.customFields).toEqual([
      { key: 'size', label: 'Taille', type: 'select', options: ['S', 'M'], required: true },
    ]);
  });

  it('refuses bad input with the documented codes', async () => {
    await h.fails('links.create', { body: { amount: 1000 } }, 'missing_required_field', 400, merchant());
    await h.fails('links.create', { body: { name: 'x', amount: 50 } }, 'invalid_amount', 400, merchant());
    await h.fails(
      'links.create',
      { body: { name: 'x', amount: 500, currency: 'USD' } },
      'invalid_currency',
      400,
      merchant(),
    );
    const both = await h.fails(
      'links.create',
      { body: { name: 'x', amount: 500, minAmount: 100 } },
      'validation_error',
      422,
      merchant(),
    );
    expect(both.fields?.[0]?.field).toBe('minAmount');
    await h.fails(
      'links.create',
      { body: { name: 'x', minAmount: 900, maxAmount: 500 } },
      'validation_error',
      422,
      merchant(),
    );
    await h.fails(
      'links.create',
      { body: { name: 'x', expiresAt: '2001-01-01T00:00:00Z' } },
      'validation_error',
      422,
      merchant(),
    );
    await h.fails('links.create', { body: { name: 'x', bogus: 1 } }, 'validation_error', 422, merchant());
    await h.fails('links.create', { body: 'nope' }, 'invalid_request', 400, merchant());
  });

  it('serves merchants only', async () => {
    await h.fails('links.create', { body: { name: 'x' } }, 'insufficient_permissions', 403);
    await h.fails('links.list', {}, 'insufficient_permissions', 403);
  });

  it('scopes links to their project and environment', async () => {
    const other = merchant(randomUUID());
    const mine = await create({ name: 'Mine', amount: 1000 });
    await h.notFound('links.retrieve', { params: { id: mine.id } }, other);
    await h.notFound('links.retrieve', { params: { id: mine.id } }, merchant(PROJECT.id, true));
    await h.notFound('links.update', { params: { id: mine.id }, body: { name: 'x' } }, other);
    const theirs = await h.ok<{ data: Link[] }>('links.list', {}, other);
    expect(theirs.data).toEqual([]);
    const retrieved = await h.ok<Link>('links.retrieve', { params: { id: mine.id } }, merchant());
    expect(retrieved).toEqual(mine);
  });

  it('lists newest first with pagination and a status filter', async () => {
    const owner = merchant(randomUUID());
    const a = await create({ name: 'A', amount: 1000 }, owner);
    const b = await create({ name: 'B', amount: 1000 }, owner);
    await h.ok('links.update', { params: { id: a.id }, body: { status: 'INACTIVE' } }, owner);
    const page = await h.ok<{ data: Link[]; has_more: boolean; meta: unknown }>(
      'links.list',
      { query: { limit: '1' } },
      owner,
    );
    expect(page.data.map((l) => l.id)).toEqual([b.id]);
    expect(page.has_more).toBe(true);
    expect(page.meta).toEqual({ limit: 1, total: 2, page: 1 });
    const inactive = await h.ok<{ data: Link[] }>('links.list', { query: { status: 'INACTIVE' } }, owner);
    expect(inactive.data.map((l) => l.id)).toEqual([a.id]);
    await h.fails('links.list', { query: { limit: '500' } }, 'invalid_request', 400, owner);
  });

  it('updates fields; a fixed amount drops the bounds of a variable link', async () => {
    const link = await create({ name: 'Var', minAmount: 200, maxAmount: 900 });
    const updated = await h.ok<Link>(
      'links.update',
      { params: { id: link.id }, body: { amount: 1500, name: 'Fixed', collectPhone: true } },
      merchant(),
    );
    expect(updated).toMatchObject({
      amount: 1500,
      minAmount: null,
      maxAmount: null,
      name: 'Fixed',
      collectPhone: true,
    });
    expect(Date.parse(updated.updatedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(link.updatedAt as string),
    );
    await h.fails(
      'links.update',
      { params: { id: link.id }, body: { status: 'EXPIRED' } },
      'validation_error',
      422,
      merchant(),
    );
    await h.fails('links.update', { params: { id: link.id }, body: {} }, 'validation_error', 422, merchant());
    await h.fails(
      'links.update',
      { params: { id: link.id }, body: { amount: null, minAmount: 800, maxAmount: 300 } },
      'validation_error',
      422,
      merchant(),
    );
  });
});

describe('payment links: public read and expiry', () => {
  it('resolves a link with the merchant name, logo and project', async () => {
    const link = await create({ name: 'Public', amount: 2500 });
    const view = await h.ok<Link>('links.public', { params: { shortCode: link.shortCode } });
    expect(view).toMatchObject({
      id: link.id,
      merchantName: PROJECT.displayName,
      merchantLogo: PROJECT.logoUrl,
      projectId: PROJECT.id,
      status: 'ACTIVE',
    });
  });

  it('answers 404 for unknown and malformed codes', async () => {
    await h.notFound('links.public', { params: { shortCode: 'ZZZZZZZZ' } });
    await h.notFound('links.public', { params: { shortCode: 'abc' } });
    await h.notFound('links.public', { params: { shortCode: '../../etc' } });
  });

  it('answers 200 with the status for inactive and expired links; the sweep stores EXPIRED', async () => {
    const inactive = await create({ name: 'Off', amount: 1000 });
    await h.ok('links.update', { params: { id: inactive.id }, body: { status: 'INACTIVE' } }, merchant());
    expect((await h.ok<Link>('links.public', { params: { shortCode: inactive.shortCode } })).status).toBe(
      'INACTIVE',
    );

    const owner = merchant(randomUUID());
    const soon = await create(
      { name: 'Soon', amount: 1000, expiresAt: new Date(Date.now() + 600).toISOString() },
      owner,
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await h.ok<Link>('links.public', { params: { shortCode: soon.shortCode } })).status).toBe(
      'EXPIRED',
    );
    await eventually(async () => {
      const expired = await h.ok<{ data: Link[] }>('links.list', { query: { status: 'EXPIRED' } }, owner);
      return expired.data.length === 1;
    });
    const active = await h.ok<{ data: Link[] }>('links.list', { query: { status: 'ACTIVE' } }, owner);
    expect(active.data).toEqual([]);
    // A new date brings it back.
    const revived = await h.ok<Link>(
      'links.update',
      { params: { id: soon.id }, body: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } },
      owner,
    );
    expect(revived.status).toBe('ACTIVE');
  });
});

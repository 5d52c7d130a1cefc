import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderFlowDocuments } from '../../scripts/flow-documents.js';
import { EVENT_CONTRACTS, OPERATION_CONTRACTS } from './index.js';
import { callCycles } from './flows.js';

describe('the contracts and their documents', () => {
  it('docs/flows.md and docs/architecture.md say what the contracts say (pnpm --filter @mmp/protocol docs:flows)', async () => {
    const rendered = await renderFlowDocuments((path) => readFileSync(path, 'utf8'));
    for (const [path, text] of Object.entries(rendered)) expect(readFileSync(path, 'utf8'), path).toBe(text);
  });

  it('has no service calling a service that calls it back: answers travel as events', () => {
    expect(callCycles(OPERATION_CONTRACTS)).toEqual([]);
  });

  it('declares each subject once', () => {
    const subjects = [...OPERATION_CONTRACTS, ...EVENT_CONTRACTS].map((contract) => contract.subject);
    expect(subjects.filter((subject, index) => subjects.indexOf(subject) !== index)).toEqual([]);
  });
});

describe('callCycles', () => {
  it('finds two services calling each other, and a longer loop', async () => {
    const { defineOperation } = await import('../bus/contract.js');
    const { z } = await import('zod');
    const op = (
      service: 'payments' | 'customers' | 'gateway',
      callers: ('payments' | 'customers' | 'gateway')[],
    ) =>
      defineOperation({
        service,
        name: 'x',
        actors: ['service'],
        callers,
        request: z.object({}),
        reply: z.object({}),
        summary: '',
      });
    expect(callCycles([op('payments', ['gateway']), op('customers', ['payments'])])).toEqual([]);
    expect(callCycles([op('payments', ['customers']), op('customers', ['payments'])])).toHaveLength(1);
    expect(
      callCycles([op('payments', ['gateway']), op('customers', ['payments']), op('gateway', ['customers'])]),
    ).toHaveLength(1);
  });
});

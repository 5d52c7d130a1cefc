import { resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import {
  EVENT_CONTRACTS,
  NOTICES,
  OPERATION_CONTRACTS,
  eventsTable,
  noticesTable,
  operationsTable,
  replaceGenerated,
  serviceGraph,
} from '../src/index.js';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const FLOWS = resolve(ROOT, 'docs/flows.md');
export const ARCHITECTURE = resolve(ROOT, 'docs/architecture.md');

/** The two documents as the contracts write them, formatted as the repository formats Markdown. */
export async function renderFlowDocuments(read: (path: string) => string): Promise<Record<string, string>> {
  let flows = read(FLOWS);
  flows = replaceGenerated(flows, 'operations', operationsTable(OPERATION_CONTRACTS));
  flows = replaceGenerated(flows, 'events', eventsTable(EVENT_CONTRACTS));
  flows = replaceGenerated(flows, 'notices', noticesTable(NOTICES));
  const architecture = replaceGenerated(
    read(ARCHITECTURE),
    'graph',
    serviceGraph(OPERATION_CONTRACTS, EVENT_CONTRACTS),
  );
  const formatted: Record<string, string> = {};
  for (const [path, text] of [
    [FLOWS, flows],
    [ARCHITECTURE, architecture],
  ] as const) {
    formatted[path] = await format(text, { ...(await resolveConfig(path)), filepath: path });
  }
  return formatted;
}

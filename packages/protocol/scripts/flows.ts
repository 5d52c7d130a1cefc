/**
 * Rewrites the generated parts of docs/flows.md (operations, events) and
 * docs/architecture.md (the service graph) from the contracts:
 * `pnpm --filter @mmp/protocol docs:flows`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderFlowDocuments } from './flow-documents.js';

for (const [path, text] of Object.entries(await renderFlowDocuments((file) => readFileSync(file, 'utf8')))) {
  writeFileSync(path, text);
  process.stdout.write(`wrote ${path}\n`);
}

import { z } from 'zod';
import type { EventContract, OperationContract } from '../bus/contract.js';
import type { Notice, ServiceName } from '../bus/subjects.js';

/**
 * The tables of `docs/flows.md` and the service graph of `docs/architecture.md`, written
 * from the contracts themselves (`pnpm --filter @mmp/protocol docs:flows`); a test fails
 * when the documents and the contracts disagree.
 */

/** A short picture of a schema's shape: the keys of an object, the element of an array. */
export function shapeOf(schema: z.ZodType, depth = 0): string {
  if (schema instanceof z.ZodOptional) return `${shapeOf(schema.unwrap() as z.ZodType, depth)}?`;
  if (schema instanceof z.ZodNullable) return `${shapeOf(schema.unwrap() as z.ZodType, depth)} \\| null`;
  if (schema instanceof z.ZodDefault) return shapeOf(schema.unwrap() as z.ZodType, depth);
  if (schema instanceof z.ZodArray) return `[${shapeOf(schema.element as z.ZodType, depth)}]`;
  if (schema instanceof z.ZodUnion) {
    return (schema.options as z.ZodType[]).map((option) => shapeOf(option, depth)).join(' \\| ');
  }
  if (schema instanceof z.ZodObject) {
    const keys = Object.keys(schema.shape);
    if (keys.length === 0) return '{}';
    if (depth > 0) return '{…}';
    return `{${keys
      .map((key) => {
        const inner = schema.shape[key] as z.ZodType;
        return inner instanceof z.ZodObject ? `${key}: ${shapeOf(inner, depth + 1)}` : key;
      })
      .join(', ')}}`;
  }
  if (schema instanceof z.ZodRecord) return '{…}';
  if (schema instanceof z.ZodLiteral) return JSON.stringify(schema.value);
  if (schema instanceof z.ZodEnum) return (schema.options as string[]).join(' \\| ');
  return schema.def.type;
}

const code = (text: string) => `\`${text}\``;

function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

function replyOf(contract: OperationContract): string {
  if (contract.responses) {
    return Object.entries(contract.responses)
      .map(([status, schema]) => `${status}: ${shapeOf(schema)}`)
      .join('<br>');
  }
  return shapeOf(contract.reply);
}

function requestOf(contract: OperationContract): string {
  return contract.responses ? 'HTTP request (params, query, body)' : shapeOf(contract.request);
}

function who(contract: OperationContract): string {
  const actors = contract.actors.join(', ');
  return contract.scope ? `${actors} (${code(contract.scope)})` : actors;
}

/** One row per operation: subject, who may call, for whom, what goes in and out, and errors. */
export function operationsTable(operations: readonly OperationContract[]): string {
  const rows = [...operations]
    .filter((contract) => contract.name !== 'ping')
    .sort((a, b) => a.subject.localeCompare(b.subject))
    .map((contract) => [
      code(contract.subject),
      contract.callers.join(', '),
      who(contract),
      requestOf(contract),
      replyOf(contract),
      contract.errors.map(code).join(', ') || '—',
    ]);
  return markdownTable(['subject', 'callers', 'acting for', 'request', 'reply', 'errors'], rows);
}

/** One row per event: type and version, producer, consumers, data, meaning. */
export function eventsTable(events: readonly EventContract[]): string {
  const rows = [...events]
    .sort((a, b) => a.type.localeCompare(b.type))
    .map((contract) => [
      `${code(contract.type)} v${contract.version}`,
      contract.producer,
      contract.consumers.join(', '),
      shapeOf(contract.data),
      contract.summary,
    ]);
  return markdownTable(['event', 'producer', 'consumers', 'data', 'meaning'], rows);
}

/** One row per notice (core NATS, not stored): subject, who tells it, who hears it, meaning. */
export function noticesTable(notices: readonly Notice[]): string {
  const rows = [...notices]
    .sort((a, b) => a.subject.localeCompare(b.subject))
    .map((notice) => [code(notice.subject), notice.service, notice.listeners.join(', '), notice.summary]);
  return markdownTable(['subject', 'told by', 'heard by', 'meaning'], rows);
}

/** Who calls whom (solid) and who hears from whom (dotted), one edge per pair. */
export function serviceGraph(
  operations: readonly OperationContract[],
  events: readonly EventContract[],
): string {
  const node = (service: string) => service.replace(/-/g, '_');
  const services = new Set<string>();
  const calls = new Set<string>();
  for (const contract of operations) {
    if (contract.name === 'ping') continue;
    for (const caller of contract.callers) {
      calls.add(`${node(caller)} --> ${node(contract.service)}`);
      services.add(caller).add(contract.service);
    }
  }
  const hears = new Set<string>();
  for (const contract of events) {
    for (const consumer of contract.consumers) {
      hears.add(`${node(contract.producer)} -.-> ${node(consumer)}`);
      services.add(contract.producer).add(consumer);
    }
  }
  const nodes = [...services].sort().map((service) => `${node(service)}[${service}]`);
  return ['```mermaid', 'flowchart LR', ...nodes, ...[...calls].sort(), ...[...hears].sort(), '```'].join(
    '\n',
  );
}

/** The calls that come back: pairs of services that each call the other, directly or around a loop. */
export function callCycles(operations: readonly OperationContract[]): ServiceName[][] {
  const edges = new Map<ServiceName, Set<ServiceName>>();
  for (const contract of operations) {
    if (contract.name === 'ping') continue;
    for (const caller of contract.callers) {
      if (caller === contract.service) continue;
      const targets = edges.get(caller) ?? new Set<ServiceName>();
      targets.add(contract.service);
      edges.set(caller, targets);
    }
  }
  const cycles: ServiceName[][] = [];
  const visit = (start: ServiceName, at: ServiceName, path: ServiceName[]) => {
    for (const next of edges.get(at) ?? []) {
      if (next === start) cycles.push([...path, next]);
      else if (!path.includes(next) && next > start) visit(start, next, [...path, next]);
    }
  };
  for (const start of edges.keys()) visit(start, start, [start]);
  return cycles;
}

/** Replaces the text between `<!-- generated:<name>:begin -->` and its end marker. */
export function replaceGenerated(document: string, name: string, content: string): string {
  const begin = `<!-- generated:${name}:begin -->`;
  const end = `<!-- generated:${name}:end -->`;
  const from = document.indexOf(begin);
  const to = document.indexOf(end);
  if (from < 0 || to < from) throw new Error(`the document has no ${name} markers`);
  return `${document.slice(0, from + begin.length)}\n\n${content}\n\n${document.slice(to)}`;
}

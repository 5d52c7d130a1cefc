import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { baseFiles, configName, memoryOf, secretName } from './base.js';
import { monitoringFiles } from './monitoring.js';
import { NATS_AUTH_VALUES, natsAuthValues } from './nats-auth.js';
import { OVERLAYS, overlayFiles } from './overlays.js';
import { COMMON_CONFIG, SERVICES } from './services.js';
import { toYaml } from './yaml.js';

export const REPO = resolve(import.meta.dirname, '../..');
export const KUBERNETES_DIR = 'deploy/kubernetes';
export const OPERATIONS_DOC = 'docs/operations.md';
const BEGIN = '<!-- generated:deploy-config:begin -->';
const END = '<!-- generated:deploy-config:end -->';

function baseKustomization(files: string[]) {
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: files,
  };
}

/** Every generated YAML file, by its path from the repository root. */
export async function generatedYaml(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const add = async (folder: string, files: Map<string, object[]>) => {
    for (const [file, documents] of files) {
      const path = `${folder}/${file}`;
      out.set(path, await toYaml(documents, join(REPO, path)));
    }
  };
  const base = baseFiles(SERVICES);
  base.set('kustomization.yaml', [baseKustomization([...base.keys()])]);
  await add(`${KUBERNETES_DIR}/base`, base);
  for (const overlay of OVERLAYS)
    await add(`${KUBERNETES_DIR}/overlays/${overlay.name}`, overlayFiles(overlay));
  await add(`${KUBERNETES_DIR}/monitoring`, monitoringFiles());
  return out;
}

/** Values of the stateful parts' charts that come from the code: the NATS users and permissions. */
export async function generatedValues(): Promise<Map<string, string>> {
  return new Map([[NATS_AUTH_VALUES, await toYaml([natsAuthValues()], join(REPO, NATS_AUTH_VALUES))]]);
}

/** The Secrets and ConfigMaps table of docs/operations.md. */
export function configTable(): string {
  const rows = SERVICES.map((spec) => {
    const secrets = spec.secrets
      .map((key) => `\`${key.name}\`${key.required ? '' : ' (optional)'}`)
      .join(', ');
    const config = Object.keys(spec.config).length
      ? `\`${configName(spec.name)}\`: ${Object.keys(spec.config)
          .map((key) => `\`${key}\``)
          .join(', ')}`
      : '—';
    const memory = memoryOf(spec);
    return `| \`${spec.name}\` | \`${secretName(spec.name)}\`: ${secrets} | ${config} | ${spec.measuredMiB.idle} / ${spec.measuredMiB.loaded} | ${memory.request} / ${memory.limit} |`;
  });
  return [
    `Every service also reads \`mmp-common-config\`: ${Object.keys(COMMON_CONFIG)
      .map((key) => `\`${key}\``)
      .join(', ')}.`,
    '',
    '| service | Secret: keys | ConfigMap: keys | RSS idle / loaded (MiB) | memory request / limit |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** docs/operations.md with its generated table brought up to date. */
export async function operationsDoc(current: string): Promise<string> {
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${OPERATIONS_DOC} lacks the ${BEGIN} … ${END} markers`);
  const text = `${current.slice(0, start + BEGIN.length)}\n\n${configTable()}\n\n${current.slice(end)}`;
  const path = join(REPO, OPERATIONS_DOC);
  return format(text, { ...((await resolveConfig(path)) ?? {}), filepath: path });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [path, text] of [...(await generatedYaml()), ...(await generatedValues())]) {
    mkdirSync(dirname(join(REPO, path)), { recursive: true });
    writeFileSync(join(REPO, path), text);
  }
  const doc = join(REPO, OPERATIONS_DOC);
  writeFileSync(doc, await operationsDoc(readFileSync(doc, 'utf8')));
  console.error(`wrote ${KUBERNETES_DIR} and the table of ${OPERATIONS_DOC}`);
}

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { parseAllDocuments } from 'yaml';

/**
 * Renders a kustomization to its final objects, for the tests, with the kustomize features
 * these manifests use and no others: `resources` (files and kustomization folders),
 * `namespace`, `images` and `patches` holding JSON patches (RFC 6902, applied by
 * fast-json-patch) with a kind/name target. Anything else is refused, so a kustomization
 * this cannot render faithfully fails loudly instead of rendering wrong. Where kubectl
 * carries kustomize, a test checks that both render the same objects.
 */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
};

type Kustomization = {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path: string; target: { kind?: string; name?: string } }[];
};

const SUPPORTED = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images', 'patches']);
/** Kinds that live outside namespaces, of those these manifests could hold. */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
]);

export function readYamlDocuments(path: string): unknown[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((document) => {
    if (document.errors.length) throw new Error(`${path}: ${document.errors[0]!.message}`);
    return document.toJS() as unknown;
  });
}

function setImages(object: K8sObject, images: NonNullable<Kustomization['images']>) {
  const spec = (object.spec as { template?: { spec?: { containers?: { image: string }[] } } }) ?? {};
  for (const container of spec.template?.spec?.containers ?? []) {
    const [name, tag] = container.image.split(':');
    const image = images.find((candidate) => candidate.name === name);
    if (image) container.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
  }
}

export function renderKustomization(folder: string): K8sObject[] {
  const path = join(folder, 'kustomization.yaml');
  const [kustomization] = readYamlDocuments(path) as [Kustomization];
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length)
    throw new Error(`${path}: the test renderer does not support ${unsupported.join(', ')}`);

  const objects: K8sObject[] = (kustomization.resources ?? []).flatMap((resource) => {
    const target = join(folder, resource);
    if (!existsSync(target)) throw new Error(`${path}: resource ${resource} does not exist`);
    return statSync(target).isDirectory()
      ? renderKustomization(target)
      : (readYamlDocuments(target) as K8sObject[]);
  });
  for (const patch of kustomization.patches ?? []) {
    const [operations] = readYamlDocuments(join(folder, patch.path)) as [Operation[]];
    if (!Array.isArray(operations))
      throw new Error(`${patch.path}: only JSON patches (a list of operations)`);
    const targets = objects.filter(
      (object) =>
        (!patch.target.kind || object.kind === patch.target.kind) &&
        (!patch.target.name || object.metadata.name === patch.target.name),
    );
    if (targets.length === 0) throw new Error(`${patch.path}: its target matches no object`);
    for (const object of targets) fastJsonPatch.applyPatch(object, operations, true, true);
  }
  for (const object of objects) {
    if (kustomization.images) setImages(object, kustomization.images);
    if (kustomization.namespace) {
      if (object.kind === 'Namespace') object.metadata.name = kustomization.namespace;
      else if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
    }
  }
  return objects;
}

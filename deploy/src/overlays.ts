import { Namespace } from 'kubernetes-models/v1';
import { COMMON_CONFIG_NAME, configName, imageOf } from './base.js';
import { SERVICES, type ServiceSpec } from './services.js';

/** The image every overlay deploys until the platform team sets its own (`kustomize edit set image`). */
export const IMAGE_REGISTRY = 'registry.example.com';
export const IMAGE_TAG = '0.1.0';

type JsonPatch = { op: 'replace' | 'add'; path: string; value: unknown }[];
type Patch = { file: string; target: { kind: string; name?: string }; ops: JsonPatch };

export type Overlay = {
  name: string;
  namespace: string;
  /** Public host of the API and hosted pages: the Ingress rule and PUBLIC_URL. */
  host?: string;
  patches: Patch[];
};

/**
 * PUBLIC_URL of the services that build links, the certification relay's public URL, and the
 * Ingress, moved to another host together.
 */
function hostPatches(host: string, services: readonly ServiceSpec[]): Patch[] {
  const withPublicUrl = services.filter((spec) => spec.config.PUBLIC_URL);
  return [
    ...withPublicUrl.map((spec) => ({
      file: `${spec.name}-config.yaml`,
      target: { kind: 'ConfigMap', name: configName(spec.name) },
      ops: [{ op: 'replace' as const, path: '/data/PUBLIC_URL', value: `https://${host}` }],
    })),
    ...services
      .filter((spec) => spec.config.CERTIFICATION_RELAY_URL)
      .map((spec) => ({
        file: `${spec.name}-config.yaml`,
        target: { kind: 'ConfigMap', name: configName(spec.name) },
        ops: [{ op: 'replace' as const, path: '/data/CERTIFICATION_RELAY_URL', value: `https://${host}` }],
      })),
    {
      file: 'ingress.yaml',
      target: { kind: 'Ingress', name: 'gateway' },
      ops: [
        { op: 'replace', path: '/spec/tls/0/hosts/0', value: host },
        { op: 'replace', path: '/spec/rules/0/host', value: host },
      ],
    },
  ];
}

export const OVERLAYS: readonly Overlay[] = [
  {
    // One replica of everything on a one-node NATS and a one-member MongoDB replica set.
    name: 'staging',
    namespace: 'mmp-staging',
    host: 'pay.staging.example.com',
    patches: [
      {
        file: 'common-config.yaml',
        target: { kind: 'ConfigMap', name: COMMON_CONFIG_NAME },
        ops: [{ op: 'replace', path: '/data/EVENTS_STREAM_REPLICAS', value: '1' }],
      },
      {
        file: 'autoscaling.yaml',
        target: { kind: 'HorizontalPodAutoscaler' },
        ops: [
          { op: 'replace', path: '/spec/minReplicas', value: 1 },
          { op: 'replace', path: '/spec/maxReplicas', value: 2 },
        ],
      },
      ...hostPatches('pay.staging.example.com', SERVICES),
    ],
  },
  {
    // The base as it is: replicas, autoscaling and the three-node stateful parts it assumes.
    name: 'production',
    namespace: 'mmp',
    patches: [],
  },
];

/** An overlay's files: its kustomization, its namespace and its patches (JSON patches, RFC 6902). */
export function overlayFiles(overlay: Overlay): Map<string, object[]> {
  const files = new Map<string, object[]>();
  files.set('kustomization.yaml', [
    {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: overlay.namespace,
      resources: ['namespace.yaml', '../../base'],
      images: SERVICES.map((spec) => ({
        name: imageOf(spec.name),
        newName: `${IMAGE_REGISTRY}/${imageOf(spec.name)}`,
        newTag: IMAGE_TAG,
      })),
      ...(overlay.patches.length
        ? { patches: overlay.patches.map(({ file, target }) => ({ path: file, target })) }
        : {}),
    },
  ]);
  files.set('namespace.yaml', [
    new Namespace({ metadata: { name: overlay.namespace, labels: { 'app.kubernetes.io/part-of': 'mmp' } } }),
  ]);
  // A JSON patch file is one YAML document holding the list of operations.
  for (const patch of overlay.patches) files.set(patch.file, [patch.ops]);
  return files;
}

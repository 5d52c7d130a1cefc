import { ConfigMap, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { OPS_PATHS } from '@mmp/platform';
import { COMMON_CONFIG, PUBLIC_HOST, RELAY_PATH, type ServiceSpec } from './services.js';

/** The image's unprivileged user (deploy/Dockerfile: USER 1000:1000). */
export const IMAGE_USER = 1000;
export const COMMON_CONFIG_NAME = 'mmp-common-config';
export const configName = (service: string) => `${service}-config`;
export const secretName = (service: string) => `${service}-secrets`;
export const imageOf = (service: string) => `mmp/${service}`;

const labelsOf = (service: string) => ({
  'app.kubernetes.io/name': service,
  'app.kubernetes.io/part-of': 'mmp',
});
const selectorOf = (service: string) => ({ 'app.kubernetes.io/name': service });
const metadataOf = (service: string, name = service) => ({ name, labels: labelsOf(service) });

/** Requests at the loaded peak, the limit with room for bursts and a V8 heap held below it. */
export function memoryOf(spec: ServiceSpec) {
  const request = Math.ceil((spec.measuredMiB.loaded * 1.25) / 16) * 16;
  const limit = Math.max(request * 2, 256);
  return { request: `${request}Mi`, limit: `${limit}Mi`, heapMiB: Math.floor(limit * 0.6) };
}

/** Seconds Kubernetes waits after SIGTERM: the drain (delay + timeout) and a margin to exit. */
export function gracePeriodSeconds(config: Record<string, string>): number {
  return Math.ceil((Number(config.SHUTDOWN_DELAY_MS) + Number(config.SHUTDOWN_TIMEOUT_MS)) / 1000) + 5;
}

/** The HTTP port a service serves besides ops: the gateway's API, the certification relay. */
function httpPortOf(spec: ServiceSpec): number | null {
  const port = spec.config.GATEWAY_PORT ?? spec.config.CERTIFICATION_RELAY_PORT;
  return port ? Number(port) : null;
}

function deployment(spec: ServiceSpec) {
  const { name } = spec;
  const memory = memoryOf(spec);
  const port = httpPortOf(spec);
  const http = port ? [{ name: 'http', containerPort: port, protocol: 'TCP' as const }] : [];
  return new Deployment({
    metadata: metadataOf(name),
    spec: {
      // An HPA owns the replica count of the others; a count here would reset it on every apply.
      ...(spec.scaling === 'single' ? { replicas: 1 } : {}),
      revisionHistoryLimit: 5,
      selector: { matchLabels: selectorOf(name) },
      strategy:
        spec.scaling === 'single'
          ? { type: 'Recreate' }
          : { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: labelsOf(name) },
        spec: {
          serviceAccountName: name,
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: gracePeriodSeconds(COMMON_CONFIG),
          securityContext: {
            runAsNonRoot: true,
            runAsUser: IMAGE_USER,
            runAsGroup: IMAGE_USER,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selectorOf(name) },
            },
          ],
          containers: [
            {
              name,
              image: `${imageOf(name)}:latest`,
              imagePullPolicy: 'IfNotPresent',
              ports: [
                ...http,
                { name: 'ops', containerPort: Number(COMMON_CONFIG.OPS_PORT), protocol: 'TCP' as const },
              ],
              envFrom: [
                { configMapRef: { name: COMMON_CONFIG_NAME } },
                ...(Object.keys(spec.config).length ? [{ configMapRef: { name: configName(name) } }] : []),
                { secretRef: { name: secretName(name) } },
              ],
              env: [
                {
                  name: 'NODE_OPTIONS',
                  value: `--max-old-space-size=${memory.heapMiB}`,
                },
              ],
              resources: {
                requests: { cpu: '50m', memory: memory.request },
                limits: { cpu: '1', memory: memory.limit },
              },
              startupProbe: {
                httpGet: { path: OPS_PATHS.liveness, port: 'ops' },
                periodSeconds: 2,
                failureThreshold: 30,
              },
              livenessProbe: {
                httpGet: { path: OPS_PATHS.liveness, port: 'ops' },
                periodSeconds: 10,
                timeoutSeconds: 2,
                failureThreshold: 3,
              },
              readinessProbe: {
                httpGet: { path: OPS_PATHS.readiness, port: 'ops' },
                periodSeconds: 5,
                // The store ping alone may take 3 s before it answers false.
                timeoutSeconds: 4,
                failureThreshold: 2,
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              // The only writable place: Node's diagnostic reports and heap snapshots, taken
              // on demand. The store is MongoDB; nothing else is written.
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } }],
        },
      },
    },
  });
}

function service(spec: ServiceSpec) {
  const http = httpPortOf(spec)
    ? [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' as const }]
    : [];
  return new Service({
    metadata: metadataOf(spec.name),
    spec: {
      type: 'ClusterIP',
      selector: selectorOf(spec.name),
      ports: [
        ...http,
        { name: 'ops', port: Number(COMMON_CONFIG.OPS_PORT), targetPort: 'ops', protocol: 'TCP' as const },
      ],
    },
  });
}

function autoscaler(spec: ServiceSpec) {
  return new HorizontalPodAutoscaler({
    metadata: metadataOf(spec.name),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: spec.name },
      minReplicas: spec.production?.min ?? 2,
      maxReplicas: spec.production?.max ?? 4,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
        },
      ],
    },
  });
}

function ingress() {
  return new Ingress({
    metadata: {
      ...metadataOf('gateway'),
      annotations: {
        // The API's own limit (BODY_LIMIT_BYTES, 1 MiB) answers 413 in the documented form.
        'nginx.ingress.kubernetes.io/proxy-body-size': '2m',
      },
    },
    spec: {
      tls: [{ hosts: [PUBLIC_HOST], secretName: 'gateway-tls' }],
      rules: [
        {
          host: PUBLIC_HOST,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'gateway', port: { name: 'http' } } },
              },
              {
                // Certification's fault relay: provider-delivery calls it like a rail's endpoint.
                path: RELAY_PATH,
                pathType: 'Prefix',
                backend: { service: { name: 'certification-runner', port: { name: 'http' } } },
              },
            ],
          },
        },
      ],
    },
  });
}

/** The base's files: one per service with all its objects, the common config, the Ingress. */
export function baseFiles(services: readonly ServiceSpec[]): Map<string, object[]> {
  const files = new Map<string, object[]>();
  files.set('common-config.yaml', [
    new ConfigMap({
      metadata: { name: COMMON_CONFIG_NAME, labels: { 'app.kubernetes.io/part-of': 'mmp' } },
      data: COMMON_CONFIG,
    }),
  ]);
  for (const spec of services) {
    const objects: object[] = [
      new ServiceAccount({ metadata: metadataOf(spec.name), automountServiceAccountToken: false }),
    ];
    if (Object.keys(spec.config).length) {
      objects.push(
        new ConfigMap({ metadata: metadataOf(spec.name, configName(spec.name)), data: spec.config }),
      );
    }
    objects.push(deployment(spec), service(spec));
    objects.push(
      new PodDisruptionBudget({
        metadata: metadataOf(spec.name),
        spec: { maxUnavailable: 1, selector: { matchLabels: selectorOf(spec.name) } },
      }),
    );
    if (spec.scaling === 'horizontal') objects.push(autoscaler(spec));
    if (spec.name === 'gateway') objects.push(ingress());
    files.set(`${spec.name}.yaml`, objects);
  }
  return files;
}

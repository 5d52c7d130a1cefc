import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { OPS_PATHS, parseEnv } from '@mmp/platform';
import { COMMON_CONFIG_NAME, gracePeriodSeconds, IMAGE_USER, secretName } from '../src/base.js';
import {
  generatedValues,
  generatedYaml,
  KUBERNETES_DIR,
  OPERATIONS_DOC,
  operationsDoc,
  REPO,
} from '../src/generate.js';
import { ALERTS } from '../src/monitoring.js';
import { OVERLAYS } from '../src/overlays.js';
import { renderKustomization, type K8sObject } from '../src/render.js';
import { ENV_SCHEMAS, variablesOf } from '../src/schemas.js';
import { SERVICES } from '../src/services.js';
import { validateObject } from '../src/validate.js';

const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

function filesUnder(folder: string): string[] {
  return readdirSync(join(REPO, folder)).flatMap((entry) => {
    if (entry === 'node_modules' || entry === 'dist') return [];
    const path = `${folder}/${entry}`;
    return statSync(join(REPO, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Variables with a row in README's configuration table (where optional ones and their defaults are). */
function documentedVariables(): Set<string> {
  const section = read('README.md')
    .split(/^## Configuration$/m)[1]!
    .split(/^## /m)[0]!;
  return new Set(
    section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!)),
  );
}

/** Values that pass each secret's schema; stand-ins for the Secrets, which are never committed. */
const SECRET_STAND_INS: Record<string, string> = {
  MONGO_URL: 'mongodb://payments:secret@mongo-0.mongo-svc:27017/?replicaSet=mmp-mongo',
  SERVICE_SECRET_KEY: 'stand-in-0123456789abcdef0123456789abcdef',
  ADMIN_TOKEN: 'adm_stand_in_0123456789abcdef',
  NATS_USER: 'payments',
  NATS_PASSWORD: 'stand-in-nats-password',
};

const RENDERED = new Map(
  [...OVERLAYS.map((overlay) => `overlays/${overlay.name}`), 'monitoring'].map((name) => [
    name,
    renderKustomization(join(REPO, KUBERNETES_DIR, name)),
  ]),
);

const find = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name);

type Container = {
  name: string;
  image: string;
  ports?: { name: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value?: string }[];
  livenessProbe?: { httpGet: { path: string; port: string } };
  readinessProbe?: { httpGet: { path: string; port: string } };
  startupProbe?: { httpGet: { path: string; port: string } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
};
type PodSpec = {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
};
const podOf = (deployment: K8sObject) =>
  (deployment.spec as { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } }).template;

describe('generated manifests', () => {
  it('are committed exactly as the generator writes them, with no stale file beside them', async () => {
    const generated = await generatedYaml();
    for (const [path, text] of generated) expect(read(path), `${path} differs: run the generator`).toBe(text);
    expect(filesUnder(KUBERNETES_DIR).sort()).toEqual([...generated.keys()].sort());
    for (const [path, text] of await generatedValues())
      expect(read(path), `${path} differs: run the generator`).toBe(text);
    expect(read(OPERATIONS_DOC), `${OPERATIONS_DOC}'s table differs: run the generator`).toBe(
      await operationsDoc(read(OPERATIONS_DOC)),
    );
  });

  it.each([...RENDERED.keys()])(
    '%s renders to objects that all validate against the Kubernetes schemas',
    (name) => {
      const objects = RENDERED.get(name)!;
      expect(objects.length).toBeGreaterThan(0);
      for (const object of objects) validateObject(object);
    },
  );

  it('a schema violation fails validation, naming the object', () => {
    const deployment = structuredClone(find(RENDERED.get('overlays/production')!, 'Deployment', 'payments')!);
    (deployment.spec as { replicas: unknown }).replicas = 'two';
    expect(() => validateObject(deployment)).toThrow(/Deployment\/payments/);
  });

  const kustomize = spawnSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  const kustomizeVersion =
    kustomize.status === 0 ? /"kustomizeVersion":\s*"v(\d+)/.exec(kustomize.stdout)?.[1] : undefined;
  it.skipIf(!kustomizeVersion || Number(kustomizeVersion) < 4)(
    'render as kustomize itself renders them (kubectl kustomize, where installed)',
    () => {
      const key = (object: K8sObject) =>
        `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
      const sorted = (objects: K8sObject[]) => [...objects].sort((a, b) => key(a).localeCompare(key(b)));
      for (const [name, objects] of RENDERED) {
        const out = spawnSync('kubectl', ['kustomize', join(REPO, KUBERNETES_DIR, name)], {
          encoding: 'utf8',
        });
        expect(out.status, out.stderr).toBe(0);
        const theirs = parseAllDocuments(out.stdout).map((document) => document.toJS() as K8sObject);
        expect(sorted(objects), name).toEqual(sorted(theirs));
      }
    },
  );
});

describe.each(OVERLAYS.map((overlay) => overlay.name))('the %s overlay', (overlayName) => {
  const objects = RENDERED.get(`overlays/${overlayName}`)!;

  /** The environment a service's pod gets: its ConfigMaps, its env and stand-ins for its Secret. */
  function podEnvironment(service: (typeof SERVICES)[number], container: Container) {
    const fromConfig: Record<string, string> = {};
    for (const source of container.envFrom ?? []) {
      if (!source.configMapRef) continue;
      const configMap = find(objects, 'ConfigMap', source.configMapRef.name);
      expect(configMap, `${service.name} imports ConfigMap ${source.configMapRef.name}`).toBeDefined();
      Object.assign(fromConfig, configMap!.data as Record<string, string>);
    }
    const fromEnv = Object.fromEntries((container.env ?? []).map((entry) => [entry.name, entry.value ?? '']));
    const secretRefs = (container.envFrom ?? []).flatMap((source) =>
      source.secretRef ? [source.secretRef.name] : [],
    );
    expect(secretRefs).toEqual([secretName(service.name)]);
    const fromSecret = Object.fromEntries(
      service.secrets.filter((key) => key.required).map((key) => [key.name, SECRET_STAND_INS[key.name]!]),
    );
    return { fromConfig, fromEnv, fromSecret };
  }

  it.each(SERVICES.map((service) => service.name))(
    '%s: every variable its config schema reads is set, or optional and documented with its default',
    (name) => {
      const service = SERVICES.find((spec) => spec.name === name)!;
      const schema = ENV_SCHEMAS[name];
      const container = podOf(find(objects, 'Deployment', name)!).spec.containers[0]!;
      const { fromConfig, fromEnv, fromSecret } = podEnvironment(service, container);
      const variables = variablesOf(schema);
      const read = new Set(variables.map((variable) => variable.name));
      const documented = documentedVariables();

      const set = new Set([...Object.keys(fromConfig), ...service.secrets.map((key) => key.name)]);
      const missing = variables.filter(
        (variable) => !set.has(variable.name) && !(variable.optional && documented.has(variable.name)),
      );
      expect(
        missing.map((variable) => variable.name),
        'neither set nor optional and documented',
      ).toEqual([]);
      const requiredOutsideSecrets = variables.filter(
        (variable) =>
          !variable.optional &&
          !(variable.name in fromConfig) &&
          !service.secrets.some((key) => key.name === variable.name && key.required),
      );
      expect(
        requiredOutsideSecrets.map((variable) => variable.name),
        'required but not always set',
      ).toEqual([]);
      // And nothing set that the service does not read (a renamed variable would go unnoticed).
      const unread = [...Object.keys(fromConfig), ...service.secrets.map((key) => key.name)].filter(
        (variable) => !read.has(variable),
      );
      expect(unread, 'set but not read by the service').toEqual([]);
      // The values set are valid for the schema: the pod would start with them.
      expect(() => parseEnv(schema, { ...fromConfig, ...fromSecret })).not.toThrow();
      expect(Object.keys(fromEnv)).toEqual(['NODE_OPTIONS']);
    },
  );

  it.each(SERVICES.map((service) => service.name))(
    '%s: ports, probes, drain and security match its config and its image',
    (name) => {
      const service = SERVICES.find((spec) => spec.name === name)!;
      const deployment = find(objects, 'Deployment', name)!;
      const pod = podOf(deployment);
      const container = pod.spec.containers[0]!;
      const { fromConfig, fromSecret } = podEnvironment(service, container);
      const env = parseEnv(ENV_SCHEMAS[name], { ...fromConfig, ...fromSecret }) as Record<string, unknown>;
      const port = (portName: string) =>
        container.ports?.find((entry) => entry.name === portName)?.containerPort;

      expect(port('ops')).toBe(env.OPS_PORT);
      expect(env.OPS_HOST).toBe('0.0.0.0');
      expect(container.livenessProbe?.httpGet).toEqual({ path: OPS_PATHS.liveness, port: 'ops' });
      expect(container.startupProbe?.httpGet).toEqual({ path: OPS_PATHS.liveness, port: 'ops' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: OPS_PATHS.readiness, port: 'ops' });
      if (name === 'gateway') {
        expect(port('http')).toBe(env.GATEWAY_PORT);
        expect(env.GATEWAY_HOST).toBe('0.0.0.0');
      }
      const drainSeconds = (Number(env.SHUTDOWN_DELAY_MS) + Number(env.SHUTDOWN_TIMEOUT_MS)) / 1000;
      expect(pod.spec.terminationGracePeriodSeconds).toBe(
        gracePeriodSeconds({
          SHUTDOWN_DELAY_MS: String(env.SHUTDOWN_DELAY_MS),
          SHUTDOWN_TIMEOUT_MS: String(env.SHUTDOWN_TIMEOUT_MS),
        }),
      );
      expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(drainSeconds);
      expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: IMAGE_USER });
      expect(container.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(container.image).toMatch(new RegExp(`/mmp/${name}:[\\w.-]+$`));

      // Every Service, PDB and HPA of the service reaches it.
      const labels = pod.metadata.labels;
      const svc = find(objects, 'Service', name)!;
      const { selector, ports } = svc.spec as {
        selector: Record<string, string>;
        ports: { targetPort: string }[];
      };
      expect(labels).toMatchObject(selector);
      for (const { targetPort } of ports)
        expect(port(targetPort), `Service port ${targetPort}`).toBeDefined();
      const pdb = find(objects, 'PodDisruptionBudget', name)!;
      expect(labels).toMatchObject((pdb.spec as { selector: { matchLabels: object } }).selector.matchLabels);
      const hpa = find(objects, 'HorizontalPodAutoscaler', name);
      expect(Boolean(hpa)).toBe(service.scaling === 'horizontal');
      if (hpa) expect((hpa.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name).toBe(name);
      else expect((deployment.spec as { replicas?: number }).replicas).toBe(1);
    },
  );

  it('serves the gateway behind its Ingress over TLS, on the host the services build links with', () => {
    const ingress = find(objects, 'Ingress', 'gateway')!;
    const spec = ingress.spec as {
      tls: { hosts: string[]; secretName: string }[];
      rules: {
        host: string;
        http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] };
      }[];
    };
    const host = spec.rules[0]!.host;
    expect(spec.tls[0]!.hosts).toEqual([host]);
    const backend = spec.rules[0]!.http.paths[0]!.backend.service;
    const gatewayService = find(objects, 'Service', backend.name)!;
    expect((gatewayService.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toContain(
      backend.port.name,
    );
    for (const name of ['gateway', 'links-checkout']) {
      const configMap = find(objects, 'ConfigMap', `${name}-config`)!;
      expect((configMap.data as Record<string, string>).PUBLIC_URL, name).toBe(`https://${host}`);
    }
    // Certification's fault relay: delivery reaches it on the public host, the Ingress routes it to the runner.
    const relay = spec.rules[0]!.http.paths.find(
      (path) => path.backend.service.name === 'certification-runner',
    ) as { path: string; backend: { service: { port: { name: string } } } } | undefined;
    expect(relay?.path).toBe('/relay');
    const runnerService = find(objects, 'Service', 'certification-runner')!;
    expect((runnerService.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toContain(
      relay!.backend.service.port.name,
    );
    const runnerConfig = find(objects, 'ConfigMap', 'certification-runner-config')!;
    expect((runnerConfig.data as Record<string, string>).CERTIFICATION_RELAY_URL).toBe(`https://${host}`);
    const sandbox = find(objects, 'ConfigMap', 'sandbox-provider-config')!;
    expect(new URL((sandbox.data as Record<string, string>).GATEWAY_URL!).hostname).toBe(backend.name);
    expect(find(objects, 'ConfigMap', COMMON_CONFIG_NAME)).toBeDefined();
  });
});

describe('the image', () => {
  const dockerfile = read('deploy/Dockerfile');

  it('is packaged by the step the packaging test runs, and runs node as the pods’ non-root user', () => {
    expect(dockerfile).toMatch(/^RUN node deploy\/scripts\/package-services\.mjs \/packaged "\$SERVICE"$/m);
    expect(dockerfile).toMatch(new RegExp(`^USER ${IMAGE_USER}:${IMAGE_USER}$`, 'm'));
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/bundle\/main\.mjs"\]$/m);
  });

  it('starts a service as `pnpm start` and its own start script do: from its bundle', () => {
    for (const { name } of SERVICES) {
      const { scripts } = JSON.parse(read(`services/${name}/package.json`)) as { scripts: { start: string } };
      expect(scripts.start, name).toBe('node dist/bundle/main.mjs');
    }
    expect(read('scripts/start.mjs')).toContain(
      "join(root, 'services', service, 'dist', 'bundle', 'main.mjs')",
    );
  });

  it('is built without the local data folder (its keys) or installed modules', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['**/.data', '**/node_modules', '.git', '.env*']) expect(ignored).toContain(entry);
  });
});

describe('the stateful parts', () => {
  it('give every service its own MongoDB user, with readWrite on its own database only', () => {
    const [replicaSet] = parseAllDocuments(read('deploy/stateful/mongodb/replica-set.yaml')).map(
      (document) =>
        document.toJS() as { spec: { users: { name: string; roles: { name: string; db: string }[] }[] } },
    );
    expect(replicaSet!.spec.users.map((user) => user.name)).toEqual(SERVICES.map((service) => service.name));
    for (const user of replicaSet!.spec.users)
      expect(user.roles).toEqual([{ name: 'readWrite', db: user.name }]);
  });

  it('run NATS with JetStream where NATS_URL points', () => {
    const values = parseAllDocuments(read('deploy/stateful/nats/values.yaml'))[0]!.toJS() as {
      config: { jetstream: { enabled: boolean }; cluster: { replicas: number } };
    };
    expect(values.config.jetstream.enabled).toBe(true);
    const common = find(RENDERED.get('overlays/production')!, 'ConfigMap', COMMON_CONFIG_NAME)!;
    const data = common.data as Record<string, string>;
    // The chart's client Service is named after the release the install command gives.
    expect(read('deploy/stateful/nats/values.yaml')).toContain(
      `helm upgrade --install ${new URL(data.NATS_URL!).hostname} nats/nats`,
    );
    expect(Number(data.EVENTS_STREAM_REPLICAS)).toBe(values.config.cluster.replicas);
  });
});

describe('alert rules', () => {
  it('use only metrics the services export (or the NATS exporter’s)', () => {
    const sources = ['packages', 'services']
      .flatMap((folder) => filesUnder(folder).filter((path) => /\/src\/.*\.ts$/.test(path)))
      .map(read)
      .join('\n');
    for (const { alert, expr } of ALERTS) {
      for (const [metric] of expr.matchAll(/\bmmp_[a-z_]+/g)) {
        expect(sources, `${alert} uses ${metric}`).toContain(`'${metric}'`);
      }
    }
  });
});

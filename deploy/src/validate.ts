import * as kubernetes from 'kubernetes-models';
import * as prometheusOperator from '@kubernetes-models/prometheus-operator';

/** A kubernetes-models class: built from an object, `validate()` checks it against its JSON schema. */
type ModelClass = { apiVersion: string; kind: string; new (data: object): { validate(): void } };

function isModel(value: unknown): value is ModelClass {
  return (
    typeof value === 'function' &&
    typeof (value as Partial<ModelClass>).apiVersion === 'string' &&
    typeof (value as Partial<ModelClass>).kind === 'string'
  );
}

/** Every kind the model packages know, by `apiVersion/kind`, walked from their group and version modules. */
function modelsOf(...roots: object[]): Map<string, ModelClass> {
  const models = new Map<string, ModelClass>();
  const walk = (module: object, depth: number) => {
    for (const value of Object.values(module)) {
      if (isModel(value)) models.set(`${value.apiVersion}/${value.kind}`, value);
      else if (value && typeof value === 'object' && depth < 3) walk(value, depth + 1);
    }
  };
  for (const root of roots) walk(root, 0);
  return models;
}

const MODELS = modelsOf(kubernetes, prometheusOperator);

/**
 * Validates one manifest object against the Kubernetes (or Prometheus Operator) schema of its
 * apiVersion and kind; throws naming the object and what is wrong, or an unknown kind.
 */
export function validateObject(object: { apiVersion?: string; kind?: string; metadata?: { name?: string } }) {
  const id = `${object.kind}/${object.metadata?.name}`;
  const Model = MODELS.get(`${object.apiVersion}/${object.kind}`);
  if (!Model) throw new Error(`${id}: no schema for ${object.apiVersion} ${object.kind}`);
  try {
    new Model(object).validate();
  } catch (error) {
    throw new Error(`${id}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

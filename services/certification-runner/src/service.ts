import { BaseEnv, type ServiceDefinition } from '@mmp/platform';

export const Env = BaseEnv.extend({});
export type Env = typeof Env;

export const certificationRunnerService: ServiceDefinition<Env> = {
  name: 'certification-runner',
  env: Env,
  async setup() {},
};

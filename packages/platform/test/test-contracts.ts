import { z } from 'zod';
import { defineOperation } from '@mmp/protocol';
import { BaseEnv } from '../src/config.js';
import type { ServiceDefinition } from '../src/service.js';

/** Operations of the kit's test services; they run as certification-runner, which owns no others here. */
export function testOperation<Rep extends z.ZodType, Req extends z.ZodType>(
  name: string,
  request: Req,
  reply: Rep,
) {
  return defineOperation({
    service: 'certification-runner',
    name,
    actors: ['service'],
    callers: ['gateway'],
    request,
    reply,
    summary: name,
  });
}

/** A kit test service, as certification-runner on the base environment, publishing `events` if given. */
export function testService(
  setup: ServiceDefinition<typeof BaseEnv>['setup'],
  events?: ServiceDefinition<typeof BaseEnv>['events'],
): ServiceDefinition<typeof BaseEnv> {
  return { name: 'certification-runner', env: BaseEnv, ...(events ? { events } : {}), setup };
}

export const slowOperation = testOperation('slow', z.unknown(), z.object({ done: z.boolean() }));
export const helloOperation = testOperation('hello', z.string(), z.object({ hello: z.string() }));

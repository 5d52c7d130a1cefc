import { z } from 'zod';
import { defineOperation } from '@mmp/protocol';

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

export const slowOperation = testOperation('slow', z.unknown(), z.object({ done: z.boolean() }));
export const helloOperation = testOperation('hello', z.string(), z.object({ hello: z.string() }));

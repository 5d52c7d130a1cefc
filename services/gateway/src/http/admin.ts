import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BusClient } from '@mmp/platform';
import { ALL_SCOPES, routerQueries, webhookEndpointsApi } from '@mmp/protocol';
import type { Accounts } from '../handlers/accounts.js';
import { parseInput, type LocalRoute } from './local-route.js';

const ProjectFields = {
  id: z.string().uuid(),
  name: z.string(),
  displayName: z.string(),
  logoUrl: z.string().nullable(),
  createdAt: z.string(),
  suspendedAt: z.string().nullable().describe('Set while suspended: its keys answer 403 service_suspended'),
};
const KeyFields = {
  id: z.string(),
  kind: z.enum(['secret', 'publishable']),
  livemode: z.boolean(),
  hint: z.string().describe('e.g. svc_test_sk_…wXyZ'),
  scopes: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
};
const KeySummary = z.object(KeyFields);
const IssuedKey = z.object({ ...KeyFields, key: z.string().describe('Shown once, at creation') });
const Project = z.object(ProjectFields);

const futureDate = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value))
  .refine((date) => date.getTime() > Date.now(), 'must be in the future');

const CreateProjectBody = z.object({
  name: z.string().trim().min(1).max(100),
  displayName: z.string().trim().min(1).max(100).optional(),
  logoUrl: z.url().max(2048).nullable().optional(),
  webhookUrl: z
    .url()
    .max(2048)
    .optional()
    .describe('Creates a sandbox webhook endpoint; its secret is returned once'),
});
const CreateKeyBody = z.object({
  kind: z.enum(['secret', 'publishable']),
  livemode: z.boolean(),
  scopes: z
    .array(z.string())
    .min(1)
    .optional()
    .describe(`Default: every scope allowed for the kind (${ALL_SCOPES.join(', ')})`),
  expiresAt: futureDate.optional(),
});
const RollKeyBody = z.object({ expiresAt: futureDate.optional() });
const CreateProviderBody = z.object({ name: z.string().trim().min(1).max(100) });

const projectParams = z.object({ projectId: z.string() });
const keyParams = z.object({ projectId: z.string(), keyId: z.string() });

type Deps = { accounts: Accounts; bus: BusClient };

const admin = { auth: 'admin', errorForm: 'envelope' } as const;

type ProjectRoute = Pick<LocalRoute, 'method' | 'tag' | 'summary' | 'responses'> & {
  /** What follows `/v1/admin/projects/:projectId`. */
  path: string;
  body?: z.ZodType;
  handle(projectId: string, request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
};

/** An admin route on one project: `:projectId` documented, and handed to `handle`. */
function projectRoute({ path, body, handle, ...route }: ProjectRoute): LocalRoute {
  return {
    ...admin,
    ...route,
    url: `/v1/admin/projects/:projectId${path}`,
    schema: { params: projectParams, ...(body ? { body } : {}) },
    handler: (request, reply) => handle((request.params as { projectId: string }).projectId, request, reply),
  };
}

/** Accounts administration the gateway answers itself: projects, their keys, providers' keys. */
export function adminLocalRoutes({ accounts, bus }: Deps): LocalRoute[] {
  return [
    {
      ...admin,
      method: 'POST',
      url: '/v1/admin/projects',
      tag: 'Admin: projects',
      summary: 'Create a project with its four keys (shown once) and, optionally, a sandbox webhook endpoint',
      schema: { body: CreateProjectBody },
      responses: {
        201: Project.extend({
          keys: z.array(IssuedKey),
          webhookEndpoint: z
            .record(z.string(), z.unknown())
            .nullable()
            .describe('Includes the whsec_ secret, once'),
        }),
      },
      async handler(request, reply) {
        const input = parseInput(CreateProjectBody, request.body);
        const id = randomUUID();
        // The endpoint first: if payments cannot take it, nothing has been created.
        const webhookEndpoint = input.webhookUrl
          ? (
              await bus.request(
                webhookEndpointsApi.create,
                { body: { url: input.webhookUrl } },
                {
                  requestId: request.id,
                  actor: {
                    kind: 'merchant',
                    projectId: id,
                    livemode: false,
                    scopes: [...ALL_SCOPES],
                    keyId: 'admin',
                  },
                },
              )
            ).body
          : null;
        const project = await accounts.createProject({ id, ...input });
        request.log.info({ projectId: id }, 'project created');
        return reply.code(201).send({ ...project, webhookEndpoint });
      },
    },
    {
      ...admin,
      method: 'GET',
      url: '/v1/admin/projects',
      tag: 'Admin: projects',
      summary: 'List projects',
      responses: { 200: z.object({ data: z.array(Project) }) },
      async handler() {
        return { data: await accounts.listProjects() };
      },
    },
    projectRoute({
      method: 'GET',
      path: '',
      tag: 'Admin: projects',
      summary: 'Retrieve a project with its keys (hints only)',
      responses: { 200: Project.extend({ keys: z.array(KeySummary) }) },
      handle: (projectId) => accounts.getProject(projectId),
    }),
    ...(['suspend', 'resume'] as const).map((action) =>
      projectRoute({
        method: 'POST',
        path: `/${action}`,
        tag: 'Admin: projects',
        summary:
          action === 'suspend'
            ? 'Suspend a project: its keys answer 403 service_suspended until it is resumed'
            : 'Resume a suspended project: its keys work again',
        responses: { 200: Project },
        async handle(projectId, request) {
          const project = await accounts.setSuspended(projectId, action === 'suspend');
          request.log.info({ projectId, suspended: project.suspendedAt !== null }, `project ${action}d`);
          return project;
        },
      }),
    ),
    projectRoute({
      method: 'POST',
      path: '/keys',
      tag: 'Admin: keys',
      summary: 'Create a key; publishable keys may hold only publishable-safe scopes',
      body: CreateKeyBody,
      responses: { 201: IssuedKey },
      async handle(projectId, request, reply) {
        const input = parseInput(CreateKeyBody, request.body);
        await accounts.requireProject(projectId);
        return reply.code(201).send(await accounts.issueKey(projectId, input));
      },
    }),
    projectRoute({
      method: 'GET',
      path: '/keys',
      tag: 'Admin: keys',
      summary: "List a project's keys (hints only, never the keys)",
      responses: { 200: z.object({ data: z.array(KeySummary) }) },
      handle: async (projectId) => ({ data: await accounts.listKeys(projectId) }),
    }),
    {
      ...admin,
      method: 'POST',
      url: '/v1/admin/projects/:projectId/keys/:keyId/roll',
      tag: 'Admin: keys',
      summary:
        'Roll a key: a new key with the same kind, environment and scopes; the old one stops working at once',
      schema: { params: keyParams, body: RollKeyBody },
      responses: { 201: IssuedKey },
      async handler(request, reply) {
        const { projectId, keyId } = request.params as { projectId: string; keyId: string };
        const input = parseInput(RollKeyBody, request.body);
        return reply.code(201).send(await accounts.rollKey(projectId, keyId, input.expiresAt));
      },
    },
    {
      ...admin,
      method: 'POST',
      url: '/v1/admin/projects/:projectId/keys/:keyId/revoke',
      tag: 'Admin: keys',
      summary: 'Revoke a key at once',
      schema: { params: keyParams },
      responses: { 200: KeySummary },
      async handler(request) {
        const { projectId, keyId } = request.params as { projectId: string; keyId: string };
        return accounts.revokeKey(projectId, keyId);
      },
    },
    {
      ...admin,
      method: 'POST',
      url: '/v1/admin/providers',
      tag: 'Admin: providers',
      summary: 'Create a provider: its API key (sk_) and settlement signing secret are shown once',
      schema: { body: CreateProviderBody },
      responses: {
        201: z.object({ id: z.string(), name: z.string(), apiKey: z.string(), signingSecret: z.string() }),
      },
      async handler(request, reply) {
        const input = parseInput(CreateProviderBody, request.body);
        const provider = await bus.request(
          routerQueries.createProvider,
          { name: input.name },
          { requestId: request.id, actor: { kind: 'admin' } },
        );
        const apiKey = await accounts.issueProviderKey(provider.id);
        request.log.info({ providerId: provider.id }, 'provider created');
        return reply
          .code(201)
          .send({ id: provider.id, name: provider.name, apiKey, signingSecret: provider.signingSecret });
      },
    },
    {
      ...admin,
      method: 'POST',
      url: '/v1/admin/providers/:providerId/keys/roll',
      tag: 'Admin: providers',
      summary: "Roll a provider's API key; the old one stops working at once",
      schema: { params: z.object({ providerId: z.string() }) },
      responses: { 201: z.object({ providerId: z.string(), apiKey: z.string() }) },
      async handler(request, reply) {
        const { providerId } = request.params as { providerId: string };
        return reply.code(201).send({ providerId, apiKey: await accounts.rollProviderKey(providerId) });
      },
    },
  ];
}

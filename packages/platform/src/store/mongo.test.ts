import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { describeStoreContract } from '../testing/store-contract/index.js';
import { openMongoStore } from './mongo.js';

/**
 * The same contract as the embedded store, against a real MongoDB: the one named by
 * MONGO_URL, else a throwaway container when a Docker engine answers, else skipped.
 */

const DOCKER_PROBE_TIMEOUT_MS = 5_000;

async function dockerAnswers(): Promise<boolean> {
  // Checked before importing testcontainers, so a machine without Docker skips at once.
  if (!process.env.DOCKER_HOST && !existsSync('/var/run/docker.sock')) return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Docker did not answer')), DOCKER_PROBE_TIMEOUT_MS);
    });
    await Promise.race([getContainerRuntimeClient(), timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const mongoUrl = process.env.MONGO_URL;
const useDocker = !mongoUrl && (await dockerAnswers());

if (!mongoUrl && !useDocker) {
  const reason = 'MONGO_URL is unset and no Docker engine answers';
  console.log(`store contract: mongodb skipped: ${reason}`);
  describe.skip(`store contract: mongodb (skipped: ${reason})`, () => {
    it('runs the store contract against MongoDB', () => undefined);
  });
} else {
  describe('mongodb', () => {
    // One database per run, so reopening (the restart test) sees the same data.
    const database = `store_contract_${randomUUID().slice(0, 8)}`;
    let url = mongoUrl ?? '';
    let stopContainer: (() => Promise<unknown>) | undefined;

    beforeAll(async () => {
      if (!useDocker) return;
      const { MongoDBContainer } = await import('@testcontainers/mongodb');
      const container = await new MongoDBContainer('mongo:7').start();
      stopContainer = () => container.stop();
      url = container.getConnectionString();
    }, 180_000);

    afterAll(async () => {
      if (stopContainer) return void (await stopContainer());
      const client = await MongoClient.connect(url);
      await client
        .db(database)
        .dropDatabase()
        .finally(() => client.close());
    }, 60_000);

    describeStoreContract('mongodb', () => openMongoStore({ url, database }));
  });
}

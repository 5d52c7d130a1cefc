import type { Logger } from '@mmp/platform';
import type { AccountsStore } from '../store/accounts.js';

/**
 * Announces, once, every project stored before `project.updated` existed, so the services
 * keeping a copy of what payers see start with every project, not only the new ones.
 */
export async function announceProjects(store: AccountsStore, log: Logger): Promise<number> {
  let announced = 0;
  for (const project of await store.unannouncedProjects()) {
    if (await store.announceProject(project, new Date())) announced++;
  }
  if (announced > 0) log.info({ announced }, 'announced the projects stored before project.updated');
  return announced;
}

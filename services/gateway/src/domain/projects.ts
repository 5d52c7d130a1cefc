import { newEvent, projectEvents, type PendingEvent } from '@mmp/protocol';

type ShownProject = { _id: string; name: string; displayName: string; logoUrl: string | null };

/** `project.updated`: what payers see of a project, for the services that show it. */
export function projectUpdated(project: ShownProject, at: Date): PendingEvent {
  const { _id: id, name, displayName, logoUrl } = project;
  return newEvent(
    projectEvents.updated,
    { project: { id, name, displayName, logoUrl } },
    { occurredAt: at.toISOString(), projectId: id },
  );
}

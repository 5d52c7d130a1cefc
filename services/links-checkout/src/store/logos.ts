import type { Collection } from '@mmp/platform';

/** A merchant's logo as last fetched, by project; `data` is null when the URL gave no usable image. */
export type LogoDoc = {
  _id: string;
  url: string;
  contentType: string | null;
  /** Base64 of the image bytes. */
  data: string | null;
  expiresAt: Date;
};

/** What the queries below work on: the service's logos (`LinksCheckoutDb` is one). */
export type LogosDb = { logos: Collection<LogoDoc> };

export function findLogo(db: LogosDb, projectId: string): Promise<LogoDoc | null> {
  return db.logos.findOne({ _id: projectId });
}

export async function saveLogo(db: LogosDb, logo: LogoDoc): Promise<void> {
  const { _id, ...fields } = logo;
  await db.logos.findOneAndUpdate({ _id }, { $set: fields }, { upsert: true });
}

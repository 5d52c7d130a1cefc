import type { LinksCheckoutDb } from './db.js';

/** A merchant's logo as last fetched, by project; `data` is null when the URL gave no usable image. */
export type LogoDoc = {
  _id: string;
  url: string;
  contentType: string | null;
  /** Base64 of the image bytes. */
  data: string | null;
  expiresAt: Date;
};

export function findLogo(db: LinksCheckoutDb, projectId: string): Promise<LogoDoc | null> {
  return db.logos.findOne({ _id: projectId });
}

export async function saveLogo(db: LinksCheckoutDb, logo: LogoDoc): Promise<void> {
  const { _id, ...fields } = logo;
  await db.logos.findOneAndUpdate({ _id }, { $set: fields }, { upsert: true });
}

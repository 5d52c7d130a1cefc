import { expect } from 'vitest';
import type { ZodError } from 'zod';
import { fieldErrors } from '../zod-errors.js';

/** The fields a parse refused, once it is checked that it did refuse. */
export function refusedFields(result: { success: boolean; error?: ZodError }): string[] {
  expect(result.success).toBe(false);
  return fieldErrors(result.error!).map((f) => f.field);
}

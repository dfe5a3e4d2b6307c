import type { JsonObject } from '../envelope.js';

/**
 * ManifestPublished version 1 → 2. Version 1 was written before manifests stated a purpose and
 * slots could be required (contract §11): it reads with purpose "" (docs/decisions.md, "A manifest
 * published before purposes") and every slot optional, which is what accepting it asked.
 */
export function publishedWithPurpose(data: JsonObject): JsonObject {
  const slots = Array.isArray(data.slots) ? data.slots : [];
  return {
    ...data,
    purpose: typeof data.purpose === 'string' ? data.purpose : '',
    slots: slots.map((slot) => (typeof slot === 'object' && slot !== null && !Array.isArray(slot) ? { required: false, ...slot } : slot)),
  };
}

/** The largest value of an `integer` column (organizations, projects, users, teams …). */
export const MAX_INT4 = 2_147_483_647;

/**
 * Text from a URL or a body as an `integer` id, or null when it cannot be one — so a lookup by
 * such text answers "not found" instead of failing in the database on an out-of-range value.
 */
export function int4Id(text: string): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const id = Number(text);
  return id <= MAX_INT4 ? id : null;
}

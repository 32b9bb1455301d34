// Only the three functions used: semver's index loads every module of the package (~2× the start-up cost).
import compare from "semver/functions/compare.js";
import valid from "semver/functions/valid.js";
import coerce from "semver/functions/coerce.js";

/**
 * Orders two releases: semver when both parse (`1.2.3`, `v1.2`, `pkg@1.2.3-beta.1`), else by
 * when each was first seen. Returns a negative number when `a` is older than `b`.
 */
export function compareReleases(a: string, b: string, firstSeen: (version: string) => Date | undefined): number {
  if (a === b) return 0;
  const va = asSemver(a);
  const vb = asSemver(b);
  if (va && vb) return compare(va, vb);
  const fa = firstSeen(a)?.getTime() ?? Number.POSITIVE_INFINITY;
  const fb = firstSeen(b)?.getTime() ?? Number.POSITIVE_INFINITY;
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

function asSemver(release: string): string | null {
  const at = release.lastIndexOf("@");
  const version = (at > 0 ? release.slice(at + 1) : release).replace(/^v/i, "");
  const exact = valid(version, { loose: true });
  if (exact) return exact;
  // "1" and "1.2" are versions too; free-form names ("build-7") are not.
  return /^\d+(\.\d+)?$/.test(version) ? (coerce(version)?.version ?? null) : null;
}

/**
 * Absolute links for payloads that leave the process (webhooks): the API URL of the issue, its
 * web permalink when the host configured one, and the project. `base` is the public URL plus the
 * mount prefix; without one the links are relative to the mount point.
 */
export function issueLinks(
  base: URL | null,
  permalinkTemplate: string | null,
  organizationSlug: string,
  issue: { id: number; shortId: string; project: { slug: string } },
) {
  const root = base ? base.toString().replace(/\/+$/, "") : "";
  const url = `${root}/api/0/organizations/${organizationSlug}/issues/${issue.id}/`;
  const web = permalinkTemplate
    ? permalinkTemplate
        .replaceAll("{organization}", organizationSlug)
        .replaceAll("{issueId}", String(issue.id))
        .replaceAll("{shortId}", issue.shortId)
    : url;
  return { url, web_url: web, project_url: `${root}/api/0/projects/${organizationSlug}/${issue.project.slug}/` };
}

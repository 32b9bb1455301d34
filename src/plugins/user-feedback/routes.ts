import type { DependencyContainer } from "tsyringe";
import { unauthenticated } from "../../auth/authenticate.js";
import { Db } from "../../container/tokens.js";
import type { Project } from "../../db/schema.js";
import { defineEndpoint, DSN_AUTHORIZATION } from "../../http/endpoint.js";
import { ApiError, notFound } from "../../http/errors.js";
import { keysetPage, type KeysetBound, pageReply } from "../../http/pagination.js";
import { ProjectKeyResolverToken } from "../ingest/tokens.js";
import { IssueRepositoryToken, legacyIssueEndpoint } from "../issues/index.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { feedbackFromReport } from "./input.js";
import type { FeedbackRow } from "./repository.js";
import { listQuery, reportBody } from "./schemas.js";
import { serializeFeedback } from "./serialize.js";
import { UserFeedbackRepositoryToken, UserFeedbackServiceToken } from "./tokens.js";

const FEEDBACK = "/api/0/projects/{organization_id_or_slug}/{project_id_or_slug}/user-feedback/";
const SCREENSHOT = `${FEEDBACK}{feedback_id}/attachments/{attachment_id}/`;
const ISSUE_REPORTS = "/api/0/organizations/{organization_id_or_slug}/issues/{issue_id}/user-reports/";

/** Image types served as themselves; anything else is sent as bytes to download, never rendered. */
const SAFE_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const projectIn = (container: DependencyContainer, organizationId: number, ref: string) =>
  container.resolve(OrganizationServiceToken).requireProject(organizationId, ref);

/** One page of feedback, serialized with its issues and screenshots read once for the page. */
async function feedbackPage(
  container: DependencyContainer,
  organizationId: number,
  query: { cursor?: string; per_page: number },
  fetch: (bound: KeysetBound) => Promise<FeedbackRow[]>,
) {
  const page = await keysetPage(fetch, {
    cursor: query.cursor,
    limit: query.per_page,
    keyOf: (row) => row.date_created.getTime(),
    idOf: (row) => Number(row.id),
  });
  const issueIds = page.rows.flatMap((row) => (row.issue_id === null ? [] : [Number(row.issue_id)]));
  const withScreenshots = page.rows.filter((row) => Number(row.attachment_count) > 0).map((row) => Number(row.id));
  const [issues, screenshots] = await Promise.all([
    container.resolve(IssueRepositoryToken).summaries(organizationId, issueIds),
    container.resolve(UserFeedbackRepositoryToken).screenshots(organizationId, withScreenshots),
  ]);
  return { page, related: { issues, screenshots } };
}

export const listProjectFeedback = defineEndpoint({
  method: "GET",
  path: FEEDBACK,
  operationId: "userFeedback.list",
  summary: "List a project's user feedback (widget, captureFeedback and user reports), newest first",
  scopes: ["project:read"],
  query: listQuery,
  handler: async (ctx) => {
    const project = await projectIn(ctx.container, ctx.organization.id, ctx.params.project_id_or_slug);
    const repository = ctx.container.resolve(UserFeedbackRepositoryToken);
    const { page, related } = await feedbackPage(ctx.container, ctx.organization.id, ctx.query, (bound) =>
      repository.listByProject(ctx.organization.id, project.id, bound),
    );
    return pageReply(ctx.url, page, ctx.query.per_page, (row) => serializeFeedback(row, related));
  },
});

/** The project a DSN (`Authorization: DSN <dsn>`) opens: its key's, which must be the path's (else 400, as Sentry). */
async function dsnProject(
  container: DependencyContainer,
  header: string | null,
  params: { organization_id_or_slug: string; project_id_or_slug: string },
): Promise<Project> {
  const dsn = DSN_AUTHORIZATION.exec(header ?? "")?.[1] ?? "";
  let publicKey = "";
  let dsnProjectId = Number.NaN;
  try {
    const url = new URL(dsn);
    publicKey = decodeURIComponent(url.username);
    dsnProjectId = Number(url.pathname.split("/").filter(Boolean).at(-1));
  } catch {
    throw unauthenticated("Invalid DSN");
  }
  if (!publicKey || !Number.isSafeInteger(dsnProjectId)) throw unauthenticated("Invalid DSN");
  const record = await container.resolve(ProjectKeyResolverToken).authenticate(publicKey, dsnProjectId);
  const organizations = container.resolve(OrganizationServiceToken);
  const organization = await organizations.requireOrganization(params.organization_id_or_slug).catch(() => null);
  if (!organization || organization.id !== record.project.organizationId) throw notFound();
  const project = await organizations.requireProject(organization.id, params.project_id_or_slug);
  if (project.id !== record.project.id) throw new ApiError(400, "The DSN is another project's");
  return project;
}

export const submitFeedback = defineEndpoint({
  method: "POST",
  path: FEEDBACK,
  operationId: "userFeedback.submit",
  summary:
    "Submit a user report for an event (Sentry's legacy endpoint): with a token, or the project's DSN (Authorization: DSN …)",
  auth: "token-or-dsn",
  scopes: ["project:write"],
  body: reportBody,
  handler: async (ctx) => {
    const project = ctx.principal
      ? await projectIn(ctx.container, ctx.organization.id, ctx.params.project_id_or_slug)
      : await dsnProject(ctx.container, ctx.request.headers.get("authorization"), ctx.params);
    const input = feedbackFromReport(ctx.body);
    if (!input) throw new ApiError(400, "event_id and comments are required");
    const target = { id: project.id, organizationId: project.organization_id };
    const result = await ctx.container.resolve(UserFeedbackServiceToken).submit(target, input);
    if (result.status === "conflict" || result.status === "duplicate")
      throw new ApiError(409, "Feedback for this event cannot be modified.");
    // A DSN is public: its caller learns nothing back (Sentry answers it with an empty 200).
    if (!ctx.principal) return { status: 200 };
    const row = await ctx.container
      .resolve(UserFeedbackRepositoryToken)
      .find(ctx.container.resolve(Db), project.organization_id, result.id);
    if (!row) throw notFound();
    const issues = await ctx.container
      .resolve(IssueRepositoryToken)
      .summaries(project.organization_id, row.issue_id === null ? [] : [Number(row.issue_id)]);
    return { status: 200, body: serializeFeedback(row, { issues, screenshots: [] }) };
  },
});

export const listIssueFeedback = defineEndpoint({
  method: "GET",
  path: ISSUE_REPORTS,
  operationId: "issues.listUserReports",
  summary: "List the user reports of an issue, newest first",
  scopes: ["event:read"],
  query: listQuery,
  handler: async (ctx) => {
    const issue = await ctx.container.resolve(IssueRepositoryToken).find(ctx.organization.id, ctx.params.issue_id);
    if (!issue) throw notFound();
    const repository = ctx.container.resolve(UserFeedbackRepositoryToken);
    const { page, related } = await feedbackPage(ctx.container, ctx.organization.id, ctx.query, (bound) =>
      repository.listByIssue(ctx.organization.id, Number(issue.id), bound),
    );
    return pageReply(ctx.url, page, ctx.query.per_page, (row) => serializeFeedback(row, related));
  },
});

export const legacyListIssueFeedback = legacyIssueEndpoint(listIssueFeedback);

const numericId = (value: string) => (/^\d{1,15}$/.test(value) ? Number(value) : null);

export const getFeedbackScreenshot = defineEndpoint({
  method: "GET",
  path: SCREENSHOT,
  operationId: "userFeedback.screenshot",
  summary: "Download a screenshot sent with a feedback",
  scopes: ["project:read"],
  handler: async (ctx) => {
    const project = await projectIn(ctx.container, ctx.organization.id, ctx.params.project_id_or_slug);
    const feedbackId = numericId(ctx.params.feedback_id);
    const attachmentId = numericId(ctx.params.attachment_id);
    if (feedbackId === null || attachmentId === null) throw notFound();
    const screenshot = await ctx.container
      .resolve(UserFeedbackRepositoryToken)
      .screenshot(ctx.organization.id, project.id, feedbackId, attachmentId);
    if (!screenshot) throw notFound();
    const safe = SAFE_IMAGES.has(screenshot.content_type);
    return new Response(screenshot.data as Uint8Array<ArrayBuffer>, {
      headers: {
        "Content-Type": safe ? screenshot.content_type : "application/octet-stream",
        "Content-Disposition": `${safe ? "inline" : "attachment"}; filename="${screenshot.name.replace(/[^\w.-]/g, "_")}"`,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "Cache-Control": "private, max-age=3600",
      },
    });
  },
});

export const userFeedbackEndpoints = [
  listProjectFeedback,
  submitFeedback,
  getFeedbackScreenshot,
  listIssueFeedback,
  legacyListIssueFeedback,
];

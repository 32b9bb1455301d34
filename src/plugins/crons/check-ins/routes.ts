import { z } from "zod";
import { Clock } from "../../../container/tokens.js";
import { defineEndpoint } from "../../../http/endpoint.js";
import { fieldErrors, zodFieldErrors } from "../../../http/errors.js";
import { cursorSchema, keysetPage, pageReply, pageSizeSchema } from "../../../http/pagination.js";
import { ProjectKeyResolverToken } from "../../ingest/tokens.js";
import { checkInItem } from "../monitors/schemas.js";
import { serializeCheckIn } from "../monitors/serialize.js";
import { CheckInIntakeToken, MonitorRepositoryToken, MonitorServiceToken } from "../tokens.js";

export const listCheckIns = defineEndpoint({
  method: "GET",
  path: "/api/0/organizations/{organization_id_or_slug}/monitors/{monitor_id_or_slug}/checkins/",
  operationId: "crons.checkIns.list",
  summary: "List a cron monitor's check-ins, newest first",
  scopes: ["project:read"],
  query: z.object({ per_page: pageSizeSchema, cursor: cursorSchema, environment: z.string().optional() }),
  handler: async ({ organization, params, query, container, url }) => {
    const monitor = await container.resolve(MonitorServiceToken).require(organization.id, params.monitor_id_or_slug);
    const repository = container.resolve(MonitorRepositoryToken);
    const page = await keysetPage((bound) => repository.checkIns(monitor.id, bound, query.environment), {
      cursor: query.cursor,
      limit: query.per_page,
      keyOf: (checkIn) => checkIn.date_created.getTime(),
      idOf: (checkIn) => Number(checkIn.id),
    });
    return pageReply(url, page, query.per_page, serializeCheckIn);
  },
});

const numberText = z
  .string()
  .regex(/^\d+(\.\d+)?$/, "must be a number")
  .transform(Number);

/** Sentry's HTTP check-in: the fields of a `check_in` item as query parameters (or a JSON body). */
const httpCheckInQuery = z.object({
  status: z.enum(["in_progress", "ok", "error"]),
  check_in_id: z.string().optional(),
  environment: z.string().optional(),
  /** Milliseconds, as Sentry's HTTP endpoint takes it. */
  duration: numberText.optional(),
});

/**
 * The DSN key of the path, unless the request names another one too (`?sentry_key=`,
 * `X-Sentry-Auth`): two different keys authenticate nothing.
 */
function pathKey(inPath: string, request: Request, url: URL): string {
  const header = /sentry_key=([^,\s]+)/.exec(request.headers.get("x-sentry-auth") ?? "")?.[1];
  const named = [url.searchParams.get("sentry_key"), header].filter((key): key is string => Boolean(key));
  return named.every((key) => key === inPath) ? inPath : "";
}

async function readBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Reported below as the body's fault.
  }
  throw fieldErrors({ body: ["must be a JSON object"] });
}

export const httpCheckIn = defineEndpoint({
  method: "POST",
  path: "/api/{project_id}/cron/{monitor_slug}/{sentry_key}/",
  operationId: "crons.checkIns.http",
  summary: "Sentry's HTTP check-in (`?status=in_progress|ok|error`), authenticated by the DSN key in the path",
  auth: "none",
  handler: async ({ params, url, request, container }) => {
    const projectId = /^\d+$/.test(params.project_id) ? Number(params.project_id) : -1;
    const key = await container
      .resolve(ProjectKeyResolverToken)
      .authenticate(pathKey(params.sentry_key, request, url), projectId);
    const body = await readBody(request);
    const query = httpCheckInQuery.partial().safeParse(Object.fromEntries(url.searchParams));
    if (!query.success) throw fieldErrors(zodFieldErrors(query.error, "query"));
    const { duration, ...fields } = query.data;
    const item = checkInItem.safeParse({
      ...body,
      ...fields,
      ...(duration !== undefined && { duration: duration / 1000 }),
      monitor_slug: params.monitor_slug,
    });
    if (!item.success) throw fieldErrors(zodFieldErrors(item.error));
    const result = await container
      .resolve(CheckInIntakeToken)
      .accept(key.project, item.data, container.resolve(Clock).now());
    if (result === "unknown_monitor")
      throw fieldErrors({ monitor_slug: ["no such monitor: send monitor_config to create it"] });
    if (result === "invalid_config")
      throw fieldErrors({ monitor_config: ["the schedule or time zone cannot be used"] });
    if (result === "other_project") throw fieldErrors({ monitor_slug: ["the monitor belongs to another project"] });
    return { status: 202 };
  },
});

export const checkInEndpoints = [listCheckIns, httpCheckIn];

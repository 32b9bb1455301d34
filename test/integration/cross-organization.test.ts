import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../src/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createTestInstance, type TestInstance } from "../../src/testing/index.js";
import { errorEvent } from "../helpers/events.js";
import { fillPath, loadOperations, type Operation, sampleBody } from "../helpers/openapi-operations.js";
import { bearer, type RunningServer, serveFaultline } from "../helpers/server.js";
import {
  bodyReferences,
  GLOBAL_PARAMS,
  seedTenant,
  snapshotTables,
  type Tenant,
  VALID_BODY_FIELDS,
} from "../helpers/tenant.js";

/**
 * Issue #13: every operation of docs/openapi.json, called by organization B (with each kind of
 * credential B holds) naming organization A's slug, ids and resources, must answer 404 (or 403
 * where B's credential may not use the endpoint at all) and must answer *exactly* as it answers
 * for a slug or id that does not exist: no data crosses, and no answer tells A's resources exist.
 *
 * The operations come from docs/openapi.json at run time; path parameters are filled from the
 * tenants' seeded values by parameter name (test/helpers/tenant.ts), so a new endpoint is covered
 * as soon as it is in the document (a new parameter name fails the suite until it is seeded).
 */

/**
 * B's bearer credentials: its owner's user token, its organization token, the installation token
 * of its own internal app, that of a public app *owned by A* installed in B (an app acts only
 * where it is installed, never in its owner's organization), and its SCIM token.
 */
type CredentialKind = "user" | "organization" | "installation" | "installationOfAppOwnedByA" | "scim";
const BEARER_KINDS: CredentialKind[] = ["user", "organization", "installation", "installationOfAppOwnedByA", "scim"];

/** A well-formed value of the same shape as `value` that names nothing. */
function absentLike(value: string): string {
  if (/^\d+$/.test(value)) return "987654321";
  if (/^[a-z]+:\d+$/.test(value)) return value.replace(/\d+$/, "987654321");
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value))
    return "00000000-0000-4000-8000-00000000abcd";
  if (/^[0-9a-f]{32}$/i.test(value)) return "0123456789abcdef0123456789abcdef";
  return `${value}-absent`;
}

/** Values of a target: path parameters, query parameters and body fields that name data. */
interface Target {
  params: Record<string, string>;
  query: Record<string, string>;
  body: Record<string, unknown>;
}

/** Where a target names A's data: these path parameters, and (or) the query and body references. */
interface Foreign {
  params: string[];
  references: boolean;
}

/** Query parameters that name resources, and the path parameter whose seeded values they take. */
const QUERY_REFERENCES: Record<string, string> = { id: "issue_id", project: "project_id", query: "short_id" };

interface Answer {
  status: number;
  body: string;
  wwwAuthenticate: string | null;
}

/** Who calls and whose data it names: the attacker's credentials, by kind, and the victim's seeded values. */
interface Direction {
  attacker: Tenant;
  victim: Tenant;
  credentials: Partial<Record<CredentialKind, string>>;
  /** Every seeded value of each parameter (slug and numeric id, several installations), or only the first. */
  allRepresentations: boolean;
}

const operations = loadOperations().filter((operation) => operation.method !== "OPTIONS");

// Each walk makes ~2,000 requests (every operation × credential × id kind): ~12 s alone on PGlite,
// more beside other test files, so the time limit is per walk, not the suite's 30 s.
describe(
  "cross-organization authorization: another organization's ids answer like ids that do not exist (issue #13)",
  { timeout: 180_000 },
  () => {
    let instance: TestInstance;
    let server: RunningServer;
    let a: Tenant;
    let b: Tenant;
    let before: Record<string, string[]>;
    /** B against A, with every credential B holds (the main direction). */
    let bAgainstA: Direction;
    /** A against B: A owns an app installed in B, which must give A nothing of B's. */
    let aAgainstB: Direction;

    beforeAll(async () => {
      instance = await createTestInstance({ worker: false, logger: silentLogger });
      server = await serveFaultline(instance.faultline);
      a = await seedTenant(instance, server.url, "alpha");
      b = await seedTenant(instance, server.url, "bravo");
      const { api } = instance.faultline;
      const app = await api.apps.create({
        organization: "alpha",
        name: "Alpha public",
        slug: "alpha-public",
        scopes: [...SCOPES],
      });
      const installed = (await api.installations.install({ organization: "bravo", app: app.slug })) as {
        uuid: string;
        code: string;
      };
      const exchanged = await fetch(`${server.url}/api/0/svc-app-installations/${installed.uuid}/authorizations/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          grant_type: "authorization_code",
          code: installed.code,
          client_id: app.clientId,
          client_secret: app.clientSecret,
        }),
      });
      const { token } = (await exchanged.json()) as { token: string };
      // B's installation of A's app is B's data too, first among B's installations so that the A→B
      // walk (slugs and first values only) names it.
      b.params.uuid = [installed.uuid, ...(b.params.uuid ?? [])];
      bAgainstA = {
        attacker: b,
        victim: a,
        credentials: { ...b.credentials, installationOfAppOwnedByA: token },
        allRepresentations: true,
      };
      aAgainstB = { attacker: a, victim: b, credentials: a.credentials, allRepresentations: false };
      before = await snapshotTables(instance);
    });
    afterAll(async () => {
      await server?.close();
      await instance?.close();
    });

    /** The values of `tenant` (representation `rep`, e.g. slug or numeric id) for this operation. */
    function targetOf(tenant: Tenant, operation: Operation, rep: number): Target {
      const params: Record<string, string> = {};
      for (const name of operation.pathParams) {
        const global = GLOBAL_PARAMS[name];
        const values = tenant.params[name];
        if (global === undefined && !values)
          throw new Error(
            `${operation.operationId}: add path parameter {${name}} to the tenant seed (test/helpers/tenant.ts)`,
          );
        params[name] = global ?? (values?.[Math.min(rep, values.length - 1)] as string);
      }
      const query = Object.fromEntries(
        operation.queryParams
          .filter((name) => name in QUERY_REFERENCES)
          .map((name) => {
            const values = tenant.params[QUERY_REFERENCES[name] as string] ?? [];
            return [name, values[Math.min(rep, values.length - 1)] as string];
          }),
      );
      return { params, query, body: bodyReferences(operation.operationId, tenant.bodyValues) };
    }

    /**
     * The absent twin of a target: the path parameters in `foreign`, and the query and body
     * references when `references`, replaced by values of the same shape that name nothing.
     */
    function absentTarget(target: Target, foreign: Foreign): Target {
      const params = Object.fromEntries(
        Object.entries(target.params).map(([name, value]) => [
          name,
          foreign.params.includes(name) ? absentLike(value) : value,
        ]),
      );
      if (!foreign.references) return { ...target, params };
      const absentValue = (value: unknown): unknown => {
        if (typeof value === "string") return absentLike(value);
        if (typeof value === "number") return 987654321;
        if (Array.isArray(value)) return value.map(absentValue);
        if (value && typeof value === "object")
          return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, absentValue(inner)]));
        return value;
      };
      const query = Object.fromEntries(Object.entries(target.query).map(([name, value]) => [name, absentLike(value)]));
      const body = Object.fromEntries(Object.entries(target.body).map(([name, value]) => [name, absentValue(value)]));
      return { params, query, body };
    }

    /** Whether the operation's JSON body has a field that names tenant data (so that the victim's data can be put there). */
    function bodyNamesData(operation: Operation): boolean {
      if (operation.body?.contentType !== "application/json") return false;
      const references = bodyReferences(operation.operationId, a.bodyValues);
      return (
        JSON.stringify(sampleBody(operation, { ...VALID_BODY_FIELDS, ...references })) !==
        JSON.stringify(sampleBody(operation, VALID_BODY_FIELDS))
      );
    }

    /** The request body: the attacker's client credentials (never the target's), the target's data otherwise. */
    function bodyFor(direction: Direction, operation: Operation, target: Target): string | undefined {
      if (!operation.body) return undefined;
      if (operation.body.contentType !== "application/json") {
        // The only non-JSON bodies are ingest: an envelope, or a bare event for /store/.
        const event = JSON.stringify({ ...errorEvent(), event_id: "f".repeat(32) });
        return operation.path.endsWith("/store/")
          ? event
          : [JSON.stringify({ event_id: "f".repeat(32) }), '{"type":"event"}', event].join("\n");
      }
      const { app } = direction.attacker.credentials;
      const known = { ...VALID_BODY_FIELDS, ...target.body, client_id: app.clientId, client_secret: app.clientSecret };
      return JSON.stringify(sampleBody(operation, known));
    }

    async function send(
      direction: Direction,
      operation: Operation,
      target: Target,
      credential: CredentialKind | null,
    ): Promise<Answer> {
      const query = new URLSearchParams(target.query);
      if (credential === null) query.set("sentry_key", direction.attacker.credentials.dsnKey);
      const response = await fetch(
        `${server.url}${fillPath(operation.path, target.params)}${query.size > 0 ? `?${query}` : ""}`,
        {
          method: operation.method,
          headers: {
            ...(credential ? bearer(direction.credentials[credential] as string) : {}),
            ...(operation.body && { "content-type": operation.body.contentType }),
          },
          body: bodyFor(direction, operation, target),
        },
      );
      const text = await response.text();
      // The names asked for may be echoed ("Unknown app "x""): that is the caller's own input, not an answer.
      const leaves = (value: unknown): string[] =>
        value && typeof value === "object"
          ? Object.values(value).flatMap(leaves)
          : value === undefined || value === null
            ? []
            : [String(value)];
      const asked = leaves([target.params, target.query, target.body]).sort((x, y) => y.length - x.length);
      const unecho = (value: string) =>
        asked.reduce(
          (result, name) =>
            result.replace(
              new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`, "g"),
              "<asked>",
            ),
          value,
        );
      let body = text;
      try {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        delete parsed.errorId;
        // (Not in `schemas`, whose URNs contain digits that an id may equal.)
        body = JSON.stringify(parsed, function (this: unknown, key, value: unknown) {
          return typeof value === "string" && key !== "status" && this !== parsed.schemas ? unecho(value) : value;
        });
      } catch {
        // Not JSON: compared verbatim (and reported by the fuzz suite).
      }
      return { status: response.status, body, wwwAuthenticate: response.headers.get("www-authenticate") };
    }

    const differences: string[] = [];
    let compared = 0;
    afterAll(() => process.stderr.write(`cross-organization: ${compared} comparisons (${compared * 2} requests)\n`));

    /**
     * Calls `operation` for a target naming A's data (`foreign` says where) and for its absent twin,
     * and records any difference. With A's id in the path the answer must be 404 (403 when the
     * credential may not use the endpoint at all). With A's data only in the query or body, the
     * answer to an unknown reference may be a 400 naming the field or an empty list: any answer but
     * a 5xx, as long as it is the absent twin's (A's data, checked at the end, is untouched).
     */
    async function compare(
      direction: Direction,
      operation: Operation,
      target: Target,
      credential: CredentialKind | null,
      foreign: Foreign,
      label: string,
    ) {
      const [seen, missing] = [
        await send(direction, operation, target, credential),
        await send(direction, operation, absentTarget(target, foreign), credential),
      ];
      compared++;
      const allowed =
        foreign.params.length === 0
          ? (status: number) => status < 500
          : (status: number) => [403, 404].includes(status) || (!operation.bearer && status === 401);
      const where = `${operation.method} ${fillPath(operation.path, target.params, String)} as ${direction.attacker.slug}'s ${credential ?? "DSN key / client credentials"} (${label})`;
      if (!allowed(seen.status)) differences.push(`${where}: ${seen.status} ${seen.body}`);
      if (JSON.stringify(seen) !== JSON.stringify(missing))
        differences.push(`${where}: existing ${JSON.stringify(seen)} ≠ absent ${JSON.stringify(missing)}`);
    }

    /**
     * Every operation, with each of the attacker's credentials, three ways: (1) the victim's
     * everything; (2) the attacker's own anchor (the first path parameter: its organization,
     * installation, app…) with the victim's resources further down the path; (3) the attacker's own
     * path throughout with the victim's references in the query or body (an assignee, group
     * members, an issue to link…).
     */
    async function walk(direction: Direction) {
      const { attacker, victim } = direction;
      for (const operation of operations) {
        const reps = direction.allRepresentations
          ? Math.max(1, ...operation.pathParams.map((name) => victim.params[name]?.length ?? 1))
          : 1;
        const dataParams = operation.pathParams.filter((name) => !(name in GLOBAL_PARAMS));
        const references = bodyNamesData(operation) || operation.queryParams.some((name) => name in QUERY_REFERENCES);
        if (dataParams.length === 0 && !references) continue;
        const credentials = operation.bearer ? BEARER_KINDS.filter((kind) => kind in direction.credentials) : [null];
        for (const credential of credentials) {
          for (let rep = 0; rep < reps; rep++) {
            const own = targetOf(attacker, operation, rep);
            const theirs = targetOf(victim, operation, rep);
            await compare(
              direction,
              operation,
              theirs,
              credential,
              { params: dataParams, references },
              `victim's ids, value ${rep}`,
            );
            const [anchor, ...inner] = dataParams;
            if (anchor && inner.length > 0) {
              const params = {
                ...own.params,
                ...Object.fromEntries(inner.map((name) => [name, theirs.params[name] as string])),
              };
              await compare(
                direction,
                operation,
                { ...own, params },
                credential,
                { params: inner, references: false },
                `own ${anchor}, victim's resources, value ${rep}`,
              );
            }
            if (references && dataParams.length > 0) {
              await compare(
                direction,
                operation,
                { ...own, query: theirs.query, body: theirs.body },
                credential,
                { params: [], references: true },
                `own path, victim's references, value ${rep}`,
              );
            }
          }
        }
      }
    }

    it("every operation, with each of B's credentials, answers A's resources exactly like ones that do not exist", async () => {
      await walk(bAgainstA);
      expect(differences, differences.join("\n")).toEqual([]);
      expect(compared).toBeGreaterThan(operations.length);
    });

    it("…and the other way round, A (whose app B installed) reaches nothing of B's, that installation included", async () => {
      differences.length = 0;
      await walk(aAgainstB);
      expect(differences, differences.join("\n")).toEqual([]);
    });

    it("B's own reads, with each of its credentials, never show anything of A's", async () => {
      const leaks: string[] = [];
      for (const operation of operations.filter((candidate) => candidate.method === "GET")) {
        const reps = Math.max(1, ...operation.pathParams.map((name) => b.params[name]?.length ?? 1));
        for (const credential of BEARER_KINDS) {
          for (let rep = 0; rep < reps; rep++) {
            const own = targetOf(b, operation, rep);
            const query = new URLSearchParams({
              ...own.query,
              ...(operation.queryParams.includes("per_page") && { per_page: "100" }),
            });
            const url = `${server.url}${fillPath(operation.path, own.params)}${query.size > 0 ? `?${query}` : ""}`;
            const response = await fetch(url, { headers: bearer(bAgainstA.credentials[credential] as string) });
            const text = await response.text();
            const shown = a.markers.filter((marker) => text.includes(marker));
            if (shown.length > 0)
              leaks.push(`${url} as B's ${credential} → ${response.status} shows ${shown.join(", ")}`);
          }
        }
      }
      expect(leaks, leaks.join("\n")).toEqual([]);
    });

    it("ingest with B's DSN key naming A's project is refused exactly like a project that does not exist", async () => {
      const envelope = (eventId: string) =>
        [
          JSON.stringify({ event_id: eventId }),
          '{"type":"event"}',
          JSON.stringify({ ...errorEvent(), event_id: eventId }),
        ].join("\n");
      const projectA = a.params.project_id?.[0] as string;
      const answers = [];
      for (const project of [projectA, absentLike(projectA)]) {
        for (const auth of ["query", "header"] as const) {
          const url = `${server.url}/api/${project}/envelope/${auth === "query" ? `?sentry_key=${b.credentials.dsnKey}` : ""}`;
          const headers: Record<string, string> =
            auth === "header" ? { "X-Sentry-Auth": `Sentry sentry_version=7, sentry_key=${b.credentials.dsnKey}` } : {};
          const response = await fetch(url, { method: "POST", headers, body: envelope("e".repeat(32)) });
          answers.push({
            project: project === projectA ? "A's" : "absent",
            auth,
            status: response.status,
            body: await response.text(),
          });
        }
      }
      for (const answer of answers) expect(answer.status, JSON.stringify(answer)).toBeGreaterThanOrEqual(400);
      expect(answers.slice(0, 2).map(({ status, body }) => ({ status, body }))).toEqual(
        answers.slice(2).map(({ status, body }) => ({ status, body })),
      );
    });

    it("A's data (and B's) is unchanged by all of it", async () => {
      expect(await snapshotTables(instance)).toEqual(before);
    });
  },
);

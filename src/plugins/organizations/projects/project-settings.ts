import type { Kysely } from "kysely";
import type { z } from "zod";
import type { Database, Project } from "../../../db/schema.js";
import type { TransactionScope } from "../../../db/transaction.js";
import { parseOrThrow } from "../../../http/validate.js";

/** A project setting's values as a contributor shows them on the project detail. */
export type ProjectSettingsValues = Record<string, unknown>;

/**
 * Settings a plugin keeps for a project and shows as fields of Sentry's project detail
 * (`GET /api/0/projects/{org}/{project}/`), changed through the project's `PUT` — without the
 * organizations plugin knowing them (docs/plugins.md, "Project settings of your own"). Register
 * one under {@link ProjectSettingsContributorToken}, built with {@link defineProjectSettings}.
 */
export interface ProjectSettingsContributor {
  /** The contributing plugin's id: named when two contributors claim one field. */
  readonly id: string;
  /** The `PUT` body fields it accepts; every field is optional there (only what is given changes). */
  readonly body: z.ZodObject;
  /**
   * Its detail fields for each of `projects`, by project id; a project it stores nothing for gets
   * its defaults. Reads through `db` (inside a transaction when the caller is in one).
   */
  load(db: Kysely<Database>, projects: readonly Project[]): Promise<ReadonlyMap<number, object>>;
  /** Stores the fields of its `body` that the `PUT` gave, in the `PUT`'s transaction. */
  save(scope: TransactionScope, project: Project, values: ProjectSettingsValues): Promise<void>;
}

/**
 * Builds a {@link ProjectSettingsContributor} whose `save` is typed from its `body` schema: it gets
 * the parsed values of the fields the `PUT` gave, and only those.
 */
export function defineProjectSettings<Body extends z.ZodObject>(contributor: {
  id: string;
  body: Body;
  load: ProjectSettingsContributor["load"];
  save(scope: TransactionScope, project: Project, values: Partial<z.output<Body>>): Promise<void>;
}): ProjectSettingsContributor {
  return contributor as ProjectSettingsContributor;
}

/**
 * The contributors, joined: one body schema for the `PUT` (each field owned by exactly one
 * contributor, none shadowing the project's own), loading for the detail, saving for the `PUT`.
 */
export class ProjectSettings {
  #owners: Map<string, ProjectSettingsContributor> | undefined;

  constructor(
    private readonly contributors: () => readonly ProjectSettingsContributor[],
    private readonly ownFields: readonly string[],
  ) {}

  /** The contributed fields of a `PUT` body (a 400 naming each bad one); absent fields stay absent. */
  parseBody(body: unknown): Map<ProjectSettingsContributor, ProjectSettingsValues> {
    const given = new Map<ProjectSettingsContributor, ProjectSettingsValues>();
    for (const contributor of this.#contributors()) {
      const values = parseOrThrow(contributor.body.partial(), body) as ProjectSettingsValues;
      const present = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
      if (Object.keys(present).length > 0) given.set(contributor, present);
    }
    return given;
  }

  /** Every contributor's detail fields for `project`, merged. */
  async load(db: Kysely<Database>, project: Project): Promise<ProjectSettingsValues> {
    const merged: ProjectSettingsValues = {};
    for (const contributor of this.#contributors()) {
      Object.assign(merged, (await contributor.load(db, [project])).get(project.id));
    }
    return merged;
  }

  /** Saves what {@link parseBody} found, contributor by contributor, in the `PUT`'s transaction. */
  async save(
    scope: TransactionScope,
    project: Project,
    given: Map<ProjectSettingsContributor, ProjectSettingsValues>,
  ): Promise<void> {
    for (const [contributor, values] of given) await contributor.save(scope, project, values);
  }

  #contributors(): Set<ProjectSettingsContributor> {
    return new Set(this.#claim().values());
  }

  /** Field → contributor; a field claimed twice (or one of the project's own) is a programming error. */
  #claim(): Map<string, ProjectSettingsContributor> {
    if (this.#owners) return this.#owners;
    const owners = new Map<string, ProjectSettingsContributor>();
    for (const contributor of this.contributors()) {
      for (const field of Object.keys(contributor.body.shape)) {
        if (this.ownFields.includes(field))
          throw new Error(`Project setting "${field}" of plugin "${contributor.id}" is a field of the project itself`);
        const other = owners.get(field);
        if (other)
          throw new Error(
            `Project setting conflict: "${field}" is contributed by "${other.id}" and "${contributor.id}"`,
          );
        owners.set(field, contributor);
      }
    }
    this.#owners = owners;
    return owners;
  }
}

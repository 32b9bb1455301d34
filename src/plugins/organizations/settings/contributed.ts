import type { Kysely } from "kysely";
import type { z } from "zod";
import type { Database, Organization, Project } from "../../../db/schema.js";
import type { TransactionScope } from "../../../db/transaction.js";
import { parseOrThrow } from "../../../http/validate.js";

/** A setting's values as a contributor shows them on the project's (or organization's) detail. */
export type ProjectSettingsValues = Record<string, unknown>;

/**
 * Settings a plugin keeps for a project (or an organization) and shows as fields of Sentry's
 * detail (`GET /api/0/projects/{org}/{project}/`, `GET /api/0/organizations/{org}/`), changed
 * through its `PUT` — without the organizations plugin knowing them (docs/plugins.md, "Project
 * settings of your own"). Register one under {@link ProjectSettingsContributorToken} (or
 * `OrganizationSettingsContributorToken`), built with {@link defineProjectSettings} (or
 * `defineOrganizationSettings`).
 */
export interface SettingsContributor<Owner extends { id: number }> {
  /** The contributing plugin's id: named when two contributors claim one field. */
  readonly id: string;
  /** The `PUT` body fields it accepts; every field is optional there (only what is given changes). */
  readonly body: z.ZodObject;
  /**
   * Its detail fields for each of `owners`, by id; one it stores nothing for gets its defaults.
   * Reads through `db` (inside a transaction when the caller is in one).
   */
  load(db: Kysely<Database>, owners: readonly Owner[]): Promise<ReadonlyMap<number, object>>;
  /** Stores the fields of its `body` that the `PUT` gave, in the `PUT`'s transaction. */
  save(scope: TransactionScope, owner: Owner, values: ProjectSettingsValues): Promise<void>;
}

export type ProjectSettingsContributor = SettingsContributor<Project>;
export type OrganizationSettingsContributor = SettingsContributor<Organization>;

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

/** Where a plugin keeps per-project settings, cached per instance (e.g. behind an `ExpiringCache`). */
export interface ProjectSettingsStore<Values> {
  /** Each project's stored settings, by id, through `db`. */
  load(db: Kysely<Database>, projectIds: readonly number[]): Promise<ReadonlyMap<number, object>>;
  save(trx: Kysely<Database>, projectId: number, values: Values): Promise<void>;
  /** Drops this instance's cached settings of the project. */
  forget(projectId: number): void;
}

/**
 * The common {@link ProjectSettingsContributor}: fields kept in a plugin's store, loaded by
 * project id, saved in the `PUT`'s transaction, and forgotten by this instance's cache once it
 * commits (other instances see the change within their cache's TTL).
 */
export function storedProjectSettings<Body extends z.ZodObject>(
  id: string,
  body: Body,
  store: () => ProjectSettingsStore<Partial<z.output<Body>>>,
): ProjectSettingsContributor {
  return defineProjectSettings({
    id,
    body,
    load: (db, projects) =>
      store().load(
        db,
        projects.map((project) => project.id),
      ),
    save: async (scope, project, values) => {
      await store().save(scope.trx, project.id, values);
      scope.afterCommit(() => store().forget(project.id));
    },
  });
}

/** {@link defineProjectSettings} for an organization's detail and `PUT`. */
export function defineOrganizationSettings<Body extends z.ZodObject>(contributor: {
  id: string;
  body: Body;
  load: OrganizationSettingsContributor["load"];
  save(scope: TransactionScope, organization: Organization, values: Partial<z.output<Body>>): Promise<void>;
}): OrganizationSettingsContributor {
  return contributor as OrganizationSettingsContributor;
}

/**
 * The contributors, joined: one body schema for the `PUT` (each field owned by exactly one
 * contributor, none shadowing the owner's own), loading for the detail, saving for the `PUT`.
 */
export class ContributedSettings<Owner extends { id: number }> {
  #owners: Map<string, SettingsContributor<Owner>> | undefined;

  constructor(
    private readonly contributors: () => readonly SettingsContributor<Owner>[],
    private readonly ownFields: readonly string[],
    /** What owns the settings, for error messages: "Project", "Organization". */
    private readonly noun: string,
  ) {}

  /** The contributed fields of a `PUT` body (a 400 naming each bad one); absent fields stay absent. */
  parseBody(body: unknown): Map<SettingsContributor<Owner>, ProjectSettingsValues> {
    const given = new Map<SettingsContributor<Owner>, ProjectSettingsValues>();
    for (const contributor of this.#contributors()) {
      const values = parseOrThrow(contributor.body.partial(), body) as ProjectSettingsValues;
      const present = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
      if (Object.keys(present).length > 0) given.set(contributor, present);
    }
    return given;
  }

  /** Every contributor's detail fields for `owner`, merged. */
  async load(db: Kysely<Database>, owner: Owner): Promise<ProjectSettingsValues> {
    const merged: ProjectSettingsValues = {};
    for (const contributor of this.#contributors()) {
      Object.assign(merged, (await contributor.load(db, [owner])).get(owner.id));
    }
    return merged;
  }

  /** Saves what {@link parseBody} found, contributor by contributor, in the `PUT`'s transaction. */
  async save(
    scope: TransactionScope,
    owner: Owner,
    given: Map<SettingsContributor<Owner>, ProjectSettingsValues>,
  ): Promise<void> {
    for (const [contributor, values] of given) await contributor.save(scope, owner, values);
  }

  #contributors(): Set<SettingsContributor<Owner>> {
    return new Set(this.#claim().values());
  }

  /** Field → contributor; a field claimed twice (or one of the owner's own) is a programming error. */
  #claim(): Map<string, SettingsContributor<Owner>> {
    if (this.#owners) return this.#owners;
    const owners = new Map<string, SettingsContributor<Owner>>();
    for (const contributor of this.contributors()) {
      for (const field of Object.keys(contributor.body.shape)) {
        if (this.ownFields.includes(field))
          throw new Error(
            `${this.noun} setting "${field}" of plugin "${contributor.id}" is a field of the ${this.noun.toLowerCase()} itself`,
          );
        const other = owners.get(field);
        if (other)
          throw new Error(
            `${this.noun} setting conflict: "${field}" is contributed by "${other.id}" and "${contributor.id}"`,
          );
        owners.set(field, contributor);
      }
    }
    this.#owners = owners;
    return owners;
  }
}

import { isScope, type Scope } from "../auth/scopes.js";
import {
  type CliCommand,
  commandFaultline,
  DATABASE_OPTIONS,
  DATABASE_USAGE,
  parseCommandArgs,
  UsageError,
} from "./io.js";

/** A first operator's token: every scope, each `admin` implying its `write` and `read`. */
const BOOTSTRAP_SCOPES: Scope[] = [
  "org:admin",
  "member:admin",
  "team:admin",
  "project:admin",
  "project:releases",
  "event:admin",
  "alerts:read",
  "alerts:write",
];

/**
 * `faultline bootstrap`: a first install without code. Migrates, then creates an organization,
 * its owner, a project and an API token, and prints the project's DSN, the owner's user id (for
 * the host's authenticate hook) and the token. Run again on
 * the same organization it creates nothing and prints the DSN again (a token is shown only when
 * created: `--new-token` creates another).
 */
export const bootstrapCommand: CliCommand = {
  summary: "bootstrap          create an organization, project and token; print the DSN and token",
  usage: `Usage: faultline bootstrap [database options] [--public-url <url>] [--organization <slug>]
         [--organization-name <name>] [--project <slug>] [--platform <name>] [--owner <username>]
         [--email <address>] [--new-token]

Migrates, then creates an organization (default "main"), its owner (default "admin", role owner),
a project (default "web") and an API token of the owner with every scope, and prints the project's
DSN, the owner's user id (what your authenticate hook returns for them) and the token. The token
is shown once: store it now.
Run again for an organization that exists, it creates nothing and prints the DSN again; with
--new-token it creates another token for the owner.
--public-url: where SDKs reach Faultline, mount path included (https://app.example.com/faultline);
              default FAULTLINE_PUBLIC_URL. Without it the DSN cannot be printed (its parts are).
${DATABASE_USAGE}`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      ...DATABASE_OPTIONS,
      "public-url": { type: "string" },
      organization: { type: "string", default: "main" },
      "organization-name": { type: "string" },
      project: { type: "string", default: "web" },
      platform: { type: "string" },
      owner: { type: "string", default: "admin" },
      email: { type: "string" },
      "new-token": { type: "boolean", default: false },
    });
    if (positionals.length > 0) throw new UsageError(`unknown argument "${positionals[0]}"`);
    const publicUrl = values["public-url"] ?? (process.env.FAULTLINE_PUBLIC_URL || undefined);
    const faultline = commandFaultline(values, { autoMigrate: true, publicUrl });
    const { api } = faultline;
    const slug = values.organization;
    try {
      const existing = await api.organizations.get(slug);
      const created: string[] = [];
      if (!existing) {
        await api.organizations.create({ slug, name: values["organization-name"] ?? slug });
        created.push(`organization "${slug}"`);
      }
      let owner = await api.users.get(values.owner);
      if (!existing) {
        owner ??= await api.users.create({ username: values.owner, email: values.email ?? null });
        await api.members.add({ organization: slug, user: owner.id, role: "owner" });
        created.push(`owner "${values.owner}"`);
      }
      let project = await api.projects.get(slug, values.project);
      if (!project && !existing) {
        project = await api.projects.create({
          organization: slug,
          slug: values.project,
          platform: values.platform ?? null,
        });
        created.push(`project "${slug}/${values.project}"`);
      }
      io.out(
        created.length > 0
          ? `faultline: created ${created.join(", ")}\n`
          : `faultline: organization "${slug}" already exists; nothing created\n`,
      );
      if (project) {
        const [key] = await api.projects.keys(slug, project.id);
        if (key) {
          io.out(
            key.dsn.public
              ? `DSN:   ${key.dsn.public}\n`
              : `DSN:   (give --public-url to print it) public key ${key.public}, project id ${project.id}\n`,
          );
        }
      } else {
        io.out(`faultline: organization "${slug}" has no project "${values.project}"\n`);
      }
      if (owner) {
        // The dashboard has no login of its own: the host's authenticate hook maps its session to
        // this id, which nothing else prints (ids are strings in the API, numbers in the hook).
        io.out(`Owner: ${owner.username}, Faultline user id ${owner.id}\n`);
        io.out(
          `       authenticate hook: return { userId: ${Number(owner.id)}, scopes: [...SCOPES] } when your app's session is this person's (docs/dashboard.md#signing-in)\n`,
        );
      }
      if (!existing || values["new-token"]) {
        if (!owner) throw new UsageError(`no user "${values.owner}" to create a token for`);
        const scopes = BOOTSTRAP_SCOPES.filter(isScope);
        const { token } = await api.tokens.create({ user: owner.id, name: "faultline bootstrap", scopes });
        io.out(
          `Token: ${token}\n       (an API token of "${values.owner}" with every scope; shown once, store it now)\n`,
        );
      } else {
        io.out("Token: none created (tokens are shown only when created; --new-token creates another)\n");
      }
      return 0;
    } finally {
      await faultline.close();
    }
  },
};

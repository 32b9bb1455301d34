import type { SchemaMigration } from "./types.js";

/** Tenancy, identity, tokens, DSN keys, apps and installations. */
export const coreMigration: SchemaMigration = {
  name: "0001_core",
  statements: (s) => [
    `CREATE TABLE ${s}.organizations (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      slug text NOT NULL UNIQUE,
      name text NOT NULL,
      plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'team', 'business', 'enterprise')),
      saml_configured boolean NOT NULL DEFAULT false,
      scim_enabled boolean NOT NULL DEFAULT false,
      date_created timestamptz NOT NULL
    )`,
    `CREATE TABLE ${s}.projects (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      slug text NOT NULL,
      name text NOT NULL,
      platform text,
      features text[] NOT NULL DEFAULT '{}',
      next_short_id integer NOT NULL DEFAULT 1,
      date_created timestamptz NOT NULL,
      UNIQUE (organization_id, slug)
    )`,
    `CREATE INDEX projects_listing ON ${s}.projects (organization_id, date_created DESC, id DESC)`,
    `CREATE TABLE ${s}.users (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      username text NOT NULL,
      email text,
      name text NOT NULL DEFAULT '',
      date_created timestamptz NOT NULL
    )`,
    `CREATE UNIQUE INDEX users_username_lower ON ${s}.users (lower(username))`,
    `CREATE INDEX users_email_lower ON ${s}.users (lower(email))`,
    `CREATE TABLE ${s}.organization_members (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES ${s}.users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'manager', 'admin', 'member', 'billing')),
      active boolean NOT NULL DEFAULT true,
      date_created timestamptz NOT NULL,
      UNIQUE (organization_id, user_id)
    )`,
    `CREATE INDEX organization_members_user ON ${s}.organization_members (user_id)`,
    `CREATE TABLE ${s}.teams (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      slug text NOT NULL,
      name text NOT NULL,
      date_created timestamptz NOT NULL,
      UNIQUE (organization_id, slug)
    )`,
    `CREATE TABLE ${s}.team_members (
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      team_id integer NOT NULL REFERENCES ${s}.teams (id) ON DELETE CASCADE,
      member_id integer NOT NULL REFERENCES ${s}.organization_members (id) ON DELETE CASCADE,
      date_created timestamptz NOT NULL,
      PRIMARY KEY (team_id, member_id)
    )`,
    `CREATE INDEX team_members_member ON ${s}.team_members (member_id)`,
    `CREATE TABLE ${s}.apps (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      uuid uuid NOT NULL UNIQUE,
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      slug text NOT NULL UNIQUE,
      name text NOT NULL,
      is_internal boolean NOT NULL DEFAULT false,
      webhook_url text,
      events text[] NOT NULL DEFAULT '{}',
      scopes text[] NOT NULL DEFAULT '{}',
      schema jsonb,
      client_id text NOT NULL UNIQUE,
      client_secret text NOT NULL,
      date_created timestamptz NOT NULL
    )`,
    `CREATE TABLE ${s}.app_installations (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      uuid uuid NOT NULL UNIQUE,
      app_id integer NOT NULL REFERENCES ${s}.apps (id) ON DELETE CASCADE,
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'installed',
      code text,
      date_created timestamptz NOT NULL,
      UNIQUE (organization_id, app_id)
    )`,
    `CREATE INDEX app_installations_listing ON ${s}.app_installations (organization_id, date_created DESC, id DESC)`,
    `CREATE TABLE ${s}.api_tokens (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('user', 'organization', 'installation', 'scim')),
      user_id integer REFERENCES ${s}.users (id) ON DELETE CASCADE,
      organization_id integer REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      installation_id integer REFERENCES ${s}.app_installations (id) ON DELETE CASCADE,
      name text,
      token_hash text NOT NULL UNIQUE,
      token_prefix text NOT NULL,
      token_last_characters text NOT NULL,
      scopes text[] NOT NULL DEFAULT '{}',
      expires_at timestamptz,
      date_created timestamptz NOT NULL,
      CHECK ((kind = 'user') = (user_id IS NOT NULL)),
      CHECK ((kind = 'user') = (organization_id IS NULL)),
      CHECK ((kind = 'installation') = (installation_id IS NOT NULL))
    )`,
    `CREATE INDEX api_tokens_user ON ${s}.api_tokens (user_id, date_created DESC) WHERE user_id IS NOT NULL`,
    `CREATE TABLE ${s}.project_keys (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      organization_id integer NOT NULL REFERENCES ${s}.organizations (id) ON DELETE CASCADE,
      project_id integer NOT NULL REFERENCES ${s}.projects (id) ON DELETE CASCADE,
      name text NOT NULL DEFAULT 'Default',
      public_key text NOT NULL UNIQUE,
      is_active boolean NOT NULL DEFAULT true,
      date_created timestamptz NOT NULL
    )`,
    `CREATE INDEX project_keys_project ON ${s}.project_keys (project_id)`,
  ],
};

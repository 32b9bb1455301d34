import { registerFactory } from "../../container/container.js";
import { Clock, Db, EventBus, TokenCache } from "../../container/tokens.js";
import { definePlugin } from "../../plugin/plugin.js";
import { TokenServiceToken } from "../api-tokens/index.js";
import { OrganizationServiceToken } from "../organizations/index.js";
import { scimErrorRenderer } from "./errors.js";
import { ScimGroupService } from "./groups/service.js";
import { ScimRepository } from "./repository.js";
import { discoveryEndpoints } from "./discovery/routes.js";
import { groupEndpoints } from "./groups/routes.js";
import { userEndpoints } from "./users/routes.js";
import { ScimSetupService } from "./setup/service.js";
import {
  ScimGroupServiceToken,
  ScimRepositoryToken,
  ScimSetupServiceToken,
  ScimUnitOfWorkToken,
  ScimUserServiceToken,
} from "./tokens.js";
import { ScimUnitOfWork } from "./requests/unit-of-work.js";
import { ScimUserService } from "./users/service.js";
import { scimMigrations } from "./migrations.js";

type Reference = string | number;

/**
 * SCIM 2.0 (RFC 7643/7644) for identity providers: Users ↔ organization members, Groups ↔ teams,
 * under `/api/0/organizations/{org}/scim/v2/`. Hosts enable it per organization with
 * `faultline.api.scim.enable(org)`, which returns the token to paste into Okta or Entra ID.
 */
export const scimPlugin = definePlugin({
  id: "scim",
  coreLedgerMigrations: scimMigrations,
  dependencies: ["organizations", "api-tokens"],
  register(container) {
    registerFactory(container, ScimRepositoryToken, () => new ScimRepository());
    registerFactory(
      container,
      ScimUnitOfWorkToken,
      (c) =>
        new ScimUnitOfWork(() => c.resolve(Db), c.resolve(ScimRepositoryToken), c.resolve(EventBus), c.resolve(Clock)),
    );
    registerFactory(
      container,
      ScimUserServiceToken,
      (c) => new ScimUserService(c.resolve(ScimUnitOfWorkToken), c.resolve(ScimRepositoryToken)),
    );
    registerFactory(
      container,
      ScimGroupServiceToken,
      (c) => new ScimGroupService(c.resolve(ScimUnitOfWorkToken), c.resolve(ScimRepositoryToken)),
    );
    registerFactory(
      container,
      ScimSetupServiceToken,
      (c) =>
        new ScimSetupService(
          () => c.resolve(Db),
          c.resolve(ScimRepositoryToken),
          c.resolve(OrganizationServiceToken),
          c.resolve(TokenServiceToken),
          c.resolve(TokenCache),
        ),
    );
  },
  endpoints: [...userEndpoints, ...groupEndpoints, ...discoveryEndpoints],
  errorRenderer: scimErrorRenderer,
  api: (container) => {
    const setup = () => container.resolve(ScimSetupServiceToken);
    return {
      scim: {
        /** Enables SCIM (business/enterprise plan with SAML configured) and returns its token: `token` is shown this once. */
        enable: (organization: Reference) => setup().enable(organization),
        /** Issues a new SCIM token and revokes the previous one. */
        rotateToken: (organization: Reference) => setup().rotateToken(organization),
        /** Turns SCIM off and revokes its token; what it provisioned stays. */
        disable: (organization: Reference) => setup().disable(organization),
      },
    };
  },
});

export type { ScimMemberSnapshot, ScimTeamMemberRef, ScimTeamSnapshot } from "./domain-events.js";
export type { ScimMemberColumns, ScimTeamColumns, ScimDatabase } from "./tables.js";

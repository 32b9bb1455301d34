import {
  ENTERPRISE_USER_SCHEMA,
  GROUP_SCHEMA,
  MAX_RESULTS,
  RESOURCE_TYPE_SCHEMA,
  SCHEMA_SCHEMA,
  SERVICE_PROVIDER_CONFIG_SCHEMA,
  USER_SCHEMA,
} from "../constants.js";
import { ALL_SCHEMAS, type SchemaDefinition } from "../resources/schema-definitions.js";

/** RFC 7643 §5: what this service provider supports (docs/scim.md, "6. Discovery and errors"). */
export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description: "The organization's SCIM token (fls_…), sent as Authorization: Bearer <token>",
        specUri: "https://www.rfc-editor.org/info/rfc6750",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  };
}

/** RFC 7643 §6: the two resource types. */
export function resourceTypes(baseUrl: string) {
  const meta = (id: string) => ({ resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/${id}` });
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: "User",
      name: "User",
      endpoint: "/Users",
      description: "Organization members",
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
      meta: meta("User"),
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      description: "Teams",
      schema: GROUP_SCHEMA,
      schemaExtensions: [],
      meta: meta("Group"),
    },
  ];
}

/** RFC 7643 §7: the attribute definitions we support, as `/Schemas` serves them. */
export function schemaResources(baseUrl: string) {
  return ALL_SCHEMAS.map((schema: SchemaDefinition) => ({
    schemas: [SCHEMA_SCHEMA],
    id: schema.id,
    name: schema.name,
    description: schema.description,
    attributes: schema.attributes,
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${schema.id}` },
  }));
}

import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, PROVISIONABLE_ROLES, USER_SCHEMA } from "../constants.js";

/** RFC 7643 §7 attribute characteristics: one definition drives validation, filters, PATCH and `/Schemas`. */
export interface AttributeDefinition {
  name: string;
  type: "string" | "boolean" | "decimal" | "integer" | "dateTime" | "reference" | "complex" | "binary";
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: "readOnly" | "readWrite" | "immutable" | "writeOnly";
  returned: "always" | "never" | "default" | "request";
  uniqueness: "none" | "server" | "global";
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: AttributeDefinition[];
}

export interface SchemaDefinition {
  id: string;
  name: string;
  description: string;
  attributes: AttributeDefinition[];
}

type Options = Partial<Omit<AttributeDefinition, "name" | "description">>;

const attribute = (name: string, description: string, options: Options = {}): AttributeDefinition => ({
  name,
  type: "string",
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...options,
});

const complex = (name: string, description: string, subAttributes: AttributeDefinition[], options: Options = {}) =>
  attribute(name, description, { type: "complex", subAttributes, ...options });

/** The usual sub-attributes of a multi-valued attribute (emails, phoneNumbers, …). */
const multiValued = (name: string, description: string, types: string[], valueOptions: Options = {}) =>
  complex(
    name,
    description,
    [
      attribute("value", `The ${name} value.`, valueOptions),
      attribute("display", "A human-readable name, primarily used for display purposes."),
      attribute("type", "A label indicating the attribute's function.", { canonicalValues: types }),
      attribute("primary", "Whether this is the primary value of the attribute.", { type: "boolean" }),
    ],
    { multiValued: true },
  );

/** `id`, `externalId` and `meta`: on every resource, not part of any schema's attribute list (RFC 7643 §3.1). */
export const COMMON_ATTRIBUTES: AttributeDefinition[] = [
  attribute("id", "Unique identifier of the resource, assigned by Faultline.", {
    caseExact: true,
    mutability: "readOnly",
    returned: "always",
    uniqueness: "server",
  }),
  attribute("externalId", "Identifier of the resource in the provisioning client.", { caseExact: true }),
  complex(
    "meta",
    "Resource metadata.",
    [
      attribute("resourceType", "The name of the resource type.", { caseExact: true, mutability: "readOnly" }),
      attribute("created", "When the resource was added.", { type: "dateTime", mutability: "readOnly" }),
      attribute("lastModified", "When the resource was last changed.", { type: "dateTime", mutability: "readOnly" }),
      attribute("location", "The URI of the resource.", {
        type: "reference",
        caseExact: true,
        mutability: "readOnly",
        referenceTypes: ["uri"],
      }),
      attribute("version", "The version (ETag) of the resource.", { caseExact: true, mutability: "readOnly" }),
    ],
    { mutability: "readOnly" },
  ),
];

export const USER_SCHEMA_DEFINITION: SchemaDefinition = {
  id: USER_SCHEMA,
  name: "User",
  description: "An organization member",
  attributes: [
    attribute("userName", "Unique identifier of the user in this organization, often an email address.", {
      required: true,
      uniqueness: "server",
    }),
    complex("name", "The components of the user's name.", [
      attribute("formatted", "The full name, formatted for display."),
      attribute("familyName", "The family name."),
      attribute("givenName", "The given name."),
      attribute("middleName", "The middle name(s)."),
      attribute("honorificPrefix", "Honorific prefix(es), e.g. 'Ms.'."),
      attribute("honorificSuffix", "Honorific suffix(es), e.g. 'III'."),
    ]),
    attribute("displayName", "The name of the user, suitable for display."),
    attribute("nickName", "The casual way to address the user."),
    attribute("profileUrl", "A URI to the user's online profile.", { type: "reference", referenceTypes: ["external"] }),
    attribute("title", "The user's title, such as 'Vice President'."),
    attribute("userType", "The relationship between the organization and the user."),
    attribute("preferredLanguage", "The user's preferred written or spoken language."),
    attribute("locale", "The user's default location for localization."),
    attribute("timezone", "The user's time zone (IANA name)."),
    attribute("active", "Whether the member has access; false deactivates without removing.", { type: "boolean" }),
    attribute("password", "Accepted for compatibility and discarded: Faultline users sign in through the host.", {
      mutability: "writeOnly",
      returned: "never",
    }),
    multiValued("emails", "Email addresses of the user.", ["work", "home", "other"]),
    multiValued("phoneNumbers", "Phone numbers of the user.", ["work", "home", "mobile", "fax", "pager", "other"]),
    multiValued("ims", "Instant messaging addresses of the user.", [
      "aim",
      "gtalk",
      "icq",
      "xmpp",
      "msn",
      "skype",
      "qq",
      "yahoo",
    ]),
    multiValued("photos", "URLs of photos of the user.", ["photo", "thumbnail"], {
      type: "reference",
      caseExact: true,
      referenceTypes: ["external"],
    }),
    complex(
      "addresses",
      "Physical mailing addresses of the user.",
      [
        attribute("formatted", "The full mailing address."),
        attribute("streetAddress", "The street address."),
        attribute("locality", "The city or locality."),
        attribute("region", "The state or region."),
        attribute("postalCode", "The zip or postal code."),
        attribute("country", "The country."),
        attribute("type", "A label indicating the attribute's function.", {
          canonicalValues: ["work", "home", "other"],
        }),
        attribute("primary", "Whether this is the primary address.", { type: "boolean" }),
      ],
      { multiValued: true },
    ),
    complex(
      "groups",
      "The teams the member belongs to (read-only: change them through Groups).",
      [
        attribute("value", "The team's id.", { mutability: "readOnly" }),
        attribute("$ref", "The URI of the team.", {
          type: "reference",
          mutability: "readOnly",
          referenceTypes: ["Group"],
        }),
        attribute("display", "The team's name.", { mutability: "readOnly" }),
        attribute("type", "How the membership is derived.", { mutability: "readOnly", canonicalValues: ["direct"] }),
      ],
      { multiValued: true, mutability: "readOnly" },
    ),
    multiValued("entitlements", "Entitlements of the user.", []),
    multiValued("roles", "Roles of the user in the identity provider (see svcOrgRole for the organization role).", []),
    multiValued("x509Certificates", "Certificates of the user.", [], { type: "binary", caseExact: true }),
    attribute("svcOrgRole", "The member's organization role (Faultline extension, Sentry's sentryOrgRole).", {
      canonicalValues: [...PROVISIONABLE_ROLES],
    }),
  ],
};

export const ENTERPRISE_USER_SCHEMA_DEFINITION: SchemaDefinition = {
  id: ENTERPRISE_USER_SCHEMA,
  name: "EnterpriseUser",
  description: "Enterprise User",
  attributes: [
    attribute("employeeNumber", "A string identifier, typically numeric or alphanumeric, assigned to the person."),
    attribute("costCenter", "The name of a cost center."),
    attribute("organization", "The name of an organization."),
    attribute("division", "The name of a division."),
    attribute("department", "The name of a department."),
    complex("manager", "The user's manager.", [
      attribute("value", "The id of the manager's User resource."),
      attribute("$ref", "The URI of the manager's User resource.", { type: "reference", referenceTypes: ["User"] }),
      attribute("displayName", "The display name of the manager."),
    ]),
  ],
};

export const GROUP_SCHEMA_DEFINITION: SchemaDefinition = {
  id: GROUP_SCHEMA,
  name: "Group",
  description: "A team",
  attributes: [
    attribute("displayName", "The team's name, unique in the organization (case-insensitive).", {
      required: true,
      uniqueness: "server",
    }),
    complex(
      "members",
      "The team's members (User ids).",
      [
        attribute("value", "The member's User id.", { mutability: "immutable", caseExact: true }),
        attribute("$ref", "The URI of the member's User resource.", {
          type: "reference",
          mutability: "immutable",
          referenceTypes: ["User"],
        }),
        attribute("display", "The member's display name.", { mutability: "readOnly" }),
        attribute("type", "The type of member.", { mutability: "immutable", canonicalValues: ["User"] }),
      ],
      { multiValued: true },
    ),
  ],
};

/** Everything one resource type is made of: its core schema, its extensions and the common attributes. */
export interface ResourceSchema {
  resourceType: "User" | "Group";
  core: SchemaDefinition;
  extensions: SchemaDefinition[];
}

export const USER_RESOURCE: ResourceSchema = {
  resourceType: "User",
  core: USER_SCHEMA_DEFINITION,
  extensions: [ENTERPRISE_USER_SCHEMA_DEFINITION],
};
export const GROUP_RESOURCE: ResourceSchema = { resourceType: "Group", core: GROUP_SCHEMA_DEFINITION, extensions: [] };

export const ALL_SCHEMAS: SchemaDefinition[] = [
  USER_SCHEMA_DEFINITION,
  GROUP_SCHEMA_DEFINITION,
  ENTERPRISE_USER_SCHEMA_DEFINITION,
];

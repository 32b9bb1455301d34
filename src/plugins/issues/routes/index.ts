import type { AnyEndpoint } from "../../../http/endpoint.js";
import { deleteIssue, getIssue, updateIssue } from "./issue.js";

/** Every HTTP endpoint of the issues area. */
export const issueEndpoints: AnyEndpoint[] = [getIssue, updateIssue, deleteIssue];

/** Event normalisation and grouping: pure functions from an SDK's event to what ingestion stores. */
export { normalizeEvent, type NormalizeOptions } from "./normalize.js";
export { groupingHashes, groupingComponents, normalizeFilename, type GroupingInput } from "./fingerprint.js";
export { describeEvent, type EventLabels, type TitleInput } from "./title.js";
export type { ExceptionInfo, StackFrame } from "./exceptions.js";
export type { EventMessage } from "./message.js";
export type { EventLevel, EventUser, NormalizedEvent } from "./types.js";
export { applyGroupingRules, parseFingerprintRules, parseStackTraceRules, type GroupingRules } from "./rules/index.js";

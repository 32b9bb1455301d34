import type { ScrubbingSettings } from "../../data-scrubbing/index.js";
import { scrubEvent } from "../../data-scrubbing/index.js";
import type { EventSink } from "../../event-store/index.js";

/**
 * The sink ingest hands events to, scrubbing each one first (docs/data-scrubbing.md): before
 * it is queued (queued mode) or stored (direct mode), so a secret never reaches the database.
 * An event scrubbing changed loses its `source` text (the queue would otherwise store the text
 * as it arrived); an event nothing matched keeps it, so the fast path stays fast.
 */
export function scrubbingSink(
  sink: EventSink,
  settings: { forProject(projectId: number): Promise<ScrubbingSettings> },
): EventSink {
  return {
    async capture(project, raw, options = {}) {
      const { event, changed } = scrubEvent(raw, await settings.forProject(project.id));
      return sink.capture(project, event, changed ? { ...options, source: null } : options);
    },
  };
}

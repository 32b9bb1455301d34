import { useState } from "preact/hooks";
import { enc, get, request } from "../api.js";
import { html } from "../html.js";
import { useAsync } from "../hooks.js";
import type { Project } from "../types.js";

interface Member {
  user: { id: string; name: string; username: string; email: string | null };
}
interface Team {
  id: string;
  slug: string;
}

const CONDITIONS: Array<[string, string]> = [
  ["first_seen_event", "a new issue is created"],
  ["regression_event", "an issue regresses"],
  ["every_event", "any event arrives"],
];
const PROVIDERS = ["slack", "discord", "teams", "json"] as const;

const EMAIL_ACTION = "sentry.mail.actions.NotifyEmailAction";

/** The email action of an editor choice: `owners`, `member:<user id>`, `team:<team id>`, or none. */
function emailAction(choice: string): Record<string, unknown> | null {
  if (choice === "owners") return { id: EMAIL_ACTION, targetType: "IssueOwners", fallthroughType: "ActiveMembers" };
  const [kind, id] = choice.split(":");
  if (kind === "member") return { id: EMAIL_ACTION, targetType: "Member", targetIdentifier: id };
  if (kind === "team") return { id: EMAIL_ACTION, targetType: "Team", targetIdentifier: id };
  return null;
}

/**
 * A new issue alert rule with its actions: when it fires, email (the issue's owners, a member or
 * a team), post to a chat room, and/or keep notifying the service hooks and apps.
 */
export function IssueRuleEditor({ org, projects, onSaved }: { org: string; projects: Project[]; onSaved(): void }) {
  const [project, setProject] = useState(projects[0]?.slug ?? "");
  const [name, setName] = useState("");
  const [condition, setCondition] = useState("first_seen_event");
  const [frequency, setFrequency] = useState("30");
  const [email, setEmail] = useState("owners");
  const [provider, setProvider] = useState("");
  const [webhookUrl, setWebhookUrl] = useState("");
  const [integrations, setIntegrations] = useState(true);
  const [notice, setNotice] = useState("");
  const people = useAsync(
    async () => ({
      members: await get<Member[]>(`/organizations/${enc(org)}/members/`),
      teams: await get<Team[]>(`/organizations/${enc(org)}/teams/`),
    }),
    [org],
  );
  const value = (e: Event) => (e.target as HTMLInputElement | HTMLSelectElement).value;
  const save = async (e: Event) => {
    e.preventDefault();
    const actions = [
      emailAction(email),
      provider ? { id: "faultline.actions.NotifyChatAction", provider, webhookUrl: webhookUrl.trim() } : null,
      integrations ? { id: "sentry.rules.actions.notify_event.NotifyEventAction" } : null,
    ].filter((action) => action !== null);
    try {
      await request("POST", `/projects/${enc(org)}/${enc(project)}/rules/`, {
        name: name.trim(),
        conditions: [{ id: condition }],
        frequency: Number(frequency),
        actions,
      });
      setNotice(`Rule "${name.trim()}" created.`);
      setName("");
      onSaved();
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  return html`<form class="rule-editor" onSubmit=${save}>
    <div class="row">
      <label>Project <select value=${project} onChange=${(e: Event) => setProject(value(e))}>
        ${projects.map((p) => html`<option value=${p.slug}>${p.slug}</option>`)}
      </select></label>
      <label>Name <input required maxlength="256" value=${name} onInput=${(e: Event) => setName(value(e))} /></label>
    </div>
    <div class="row">
      <label>When <select value=${condition} onChange=${(e: Event) => setCondition(value(e))}>
        ${CONDITIONS.map(([id, label]) => html`<option value=${id}>${label}</option>`)}
      </select></label>
      <label>At most every <input type="number" min="5" max="43200" size="6" value=${frequency} onInput=${(e: Event) => setFrequency(value(e))} /> minutes per issue</label>
    </div>
    <div class="row">
      <label>Email <select value=${email} onChange=${(e: Event) => setEmail(value(e))}>
        <option value="">nobody</option>
        <option value="owners">the issue's owners (its assignee), else every member</option>
        ${(people.data?.members ?? []).map((m) => html`<option value=${`member:${m.user.id}`}>member ${m.user.name || m.user.username}${m.user.email ? "" : " (no address)"}</option>`)}
        ${(people.data?.teams ?? []).map((t) => html`<option value=${`team:${t.id}`}>team #${t.slug}</option>`)}
      </select></label>
    </div>
    <div class="row">
      <label>Chat <select value=${provider} onChange=${(e: Event) => setProvider(value(e))}>
        <option value="">none</option>
        ${PROVIDERS.map((p) => html`<option value=${p}>${p}</option>`)}
      </select></label>
      ${
        provider
          ? html`<label class="grow">Webhook URL <input type="url" required class="grow" value=${webhookUrl} onInput=${(e: Event) => setWebhookUrl(value(e))} /></label>`
          : null
      }
    </div>
    <label><input type="checkbox" checked=${integrations} onChange=${() => setIntegrations(!integrations)} /> Also notify the service hooks and apps</label>
    <div class="row"><button class="primary">Create rule</button><span class="muted" role="status">${notice}</span></div>
  </form>`;
}

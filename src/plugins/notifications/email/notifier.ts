import type { Transporter } from "nodemailer";
import type { SendResult } from "../../../delivery/sender.js";
import type { Notifier, OutgoingMessage } from "../notifier.js";
import { type EmailMessage, renderEmail } from "./render.js";

export interface EmailSettings {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://host:465` (TLS). */
  url: string;
  from: string;
  /** A server must answer within this (connecting, greeting, each command). */
  timeoutMs: number;
}

/** SMTP's answer as the outbox reads it: 4xx (try later) and 5xx both retried on the schedule, so a refusal is never a silent loss. */
const SMTP_TRANSIENT = 503;
const SMTP_PERMANENT = 502;

/**
 * Email over SMTP (nodemailer, one pooled transport per instance). A message is rendered when it
 * is queued and sent as stored; its Message-ID is the delivery id, the same on every attempt.
 */
export class EmailNotifier implements Notifier {
  readonly channel = "email";
  readonly audience = "user";
  #transport: Promise<Transporter> | undefined;

  constructor(private readonly settings: EmailSettings) {}

  render: Notifier["render"] = (notifications, target, { unsubscribeUrl }) => {
    if (target.kind !== "user" || !target.email) return null;
    return { address: target.email, body: renderEmail(notifications, target.email, unsubscribeUrl) };
  };

  async send(message: OutgoingMessage): Promise<SendResult> {
    const started = performance.now();
    const email = JSON.parse(message.body) as EmailMessage;
    try {
      const info = await (
        await this.#transporter()
      ).sendMail({
        from: this.settings.from,
        to: message.address,
        subject: email.subject,
        text: email.text,
        html: email.html,
        headers: email.headers,
        messageId: `<${message.id}@faultline>`,
      });
      return {
        status: 250,
        body: String(info.response ?? ""),
        retryAfter: null,
        error: null,
        durationMs: performance.now() - started,
      };
    } catch (error) {
      const smtp = error as { responseCode?: number; response?: string; code?: string; message?: string };
      const code = smtp.responseCode;
      const status = code === undefined ? 0 : code >= 500 ? SMTP_PERMANENT : SMTP_TRANSIENT;
      const detail =
        code === undefined
          ? `${smtp.code ?? "ERROR"}: ${smtp.message ?? String(error)}`
          : `SMTP ${code}: ${smtp.response ?? smtp.message}`;
      return {
        status,
        body: "",
        retryAfter: null,
        error: detail.slice(0, 1000),
        durationMs: performance.now() - started,
      };
    }
  }

  displayAddress(address: string): string {
    return `mailto:${address}`;
  }

  /** Closes the pooled connections (the instance's `close()`). */
  async close(): Promise<void> {
    const transport = this.#transport;
    this.#transport = undefined;
    (await transport?.catch(() => undefined))?.close();
  }

  /** Loaded on the first email: hosts that send none never load nodemailer (start-up time). */
  #transporter(): Promise<Transporter> {
    this.#transport ??= import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: this.settings.url,
        pool: true,
        maxConnections: 4,
        connectionTimeout: this.settings.timeoutMs,
        greetingTimeout: this.settings.timeoutMs,
        socketTimeout: this.settings.timeoutMs,
      }),
    );
    return this.#transport;
  }
}

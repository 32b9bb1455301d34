import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/smtp-tls/${name}`, import.meta.url));

export const SMTP_USER = "mailer";
export const SMTP_PASSWORD = "s3cret";

/**
 * A real SMTP server on 127.0.0.1 (smtp-server, the library behind nodemailer's own tests): it
 * requires AUTH with the test credentials, parses every accepted message with mailparser, and
 * refuses the next messages with the SMTP codes given to `refuse` (451: try later; 550: refused).
 * `tls`: none (plain, AUTH allowed in clear for the test), `starttls` (offered and required before
 * AUTH) or `implicit` (TLS from the first byte, `smtps://`), with a self-signed certificate
 * (test/fixtures/smtp-tls). `secure` records, per accepted message, whether its session was encrypted.
 */
export async function startSmtp(port = 0, tls: "none" | "starttls" | "implicit" = "none") {
  const received: ParsedMail[] = [];
  const secure: boolean[] = [];
  const refusals: number[] = [];
  const server = new SMTPServer({
    authMethods: ["PLAIN", "LOGIN"],
    allowInsecureAuth: tls === "none",
    ...(tls === "none" ? { disabledCommands: ["STARTTLS"] } : { key: fixture("key.pem"), cert: fixture("cert.pem") }),
    secure: tls === "implicit",
    logger: false,
    closeTimeout: 200,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const code = refusals.shift();
        if (code !== undefined) {
          const refusal = new Error(code >= 500 ? "Mailbox unavailable" : "Try again later") as Error & {
            responseCode: number;
          };
          refusal.responseCode = code;
          callback(refusal);
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (mail) => {
            received.push(mail);
            secure.push(session.secure);
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  const scheme = tls === "implicit" ? "smtps" : "smtp";
  // The test certificate is self-signed: the client is told to accept it (nodemailer reads `tls.*` from the URL).
  const query = tls === "none" ? "" : "?tls.rejectUnauthorized=false";
  return {
    url: `${scheme}://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${bound}${query}`,
    port: bound,
    received,
    secure,
    /** The next messages are refused with these SMTP codes, in order. */
    refuse: (...codes: number[]) => void refusals.push(...codes),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type SmtpServer = Awaited<ReturnType<typeof startSmtp>>;

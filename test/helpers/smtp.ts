import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export const SMTP_USER = "mailer";
export const SMTP_PASSWORD = "s3cret";

/**
 * A real SMTP server on 127.0.0.1 (smtp-server, the library behind nodemailer's own tests): it
 * requires AUTH with the test credentials, parses every accepted message with mailparser, and
 * refuses the next messages with the SMTP codes given to `refuse` (451: try later; 550: refused).
 */
export async function startSmtp(port = 0) {
  const received: ParsedMail[] = [];
  const refusals: number[] = [];
  const server = new SMTPServer({
    authMethods: ["PLAIN", "LOGIN"],
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    closeTimeout: 200,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, _session, callback) {
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
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${bound}`,
    port: bound,
    received,
    /** The next messages are refused with these SMTP codes, in order. */
    refuse: (...codes: number[]) => void refusals.push(...codes),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type SmtpServer = Awaited<ReturnType<typeof startSmtp>>;

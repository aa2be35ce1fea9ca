import * as z from "zod";
import { SlackSender } from "../adapters/notify/slack-sender.js";
import { WebhookSender } from "../adapters/notify/webhook-sender.js";
import type { ChannelSender } from "../app/ports/approval-delivery.js";
import type { GatewayConfig } from "../config/schema.js";

/** Settings keys of `approvals` that are not channels. */
const NOT_CHANNELS = new Set(["enabled", "channel", "delivery"]);
/** Channels that need no settings and no adapter. */
const BUILT_IN = new Set(["event_stream", "noop"]);

/** A sender's request timeout when the settings name none. */
const DEFAULT_TIMEOUT_S = 10;

const httpUrl = (what: string) =>
  z.string().refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === "http:" || url.protocol === "https:";
      } catch {
        return false;
      }
    },
    { error: `${what} must be an http:// or https:// URL` },
  );

/** The secret may be written in the file, or named as an environment variable (preferred). */
const secretKeys = {
  signing_secret: z.string().min(16, { error: "signing_secret must have at least 16 characters" }).optional(),
  signing_secret_env: z.string().min(1).optional(),
};

const timeout = z.number().positive().max(300).default(DEFAULT_TIMEOUT_S);

const webhookSchema = z.strictObject({
  url: httpUrl("url"),
  headers: z.record(z.string(), z.string()).default(() => ({})),
  timeout_s: timeout,
  ...secretKeys,
});

const slackSchema = z.strictObject({
  webhook_url: httpUrl("webhook_url"),
  timeout_s: timeout,
  ...secretKeys,
});

export interface ChannelPlan {
  /** One sender per channel whose settings are usable. */
  readonly senders: readonly ChannelSender[];
  /** Signing secrets by channel: they verify callbacks (and sign webhook notifications). */
  readonly secrets: ReadonlyMap<string, string>;
  /** Channels configured in `approvals` that cannot deliver, and why (never a secret or a URL). */
  readonly problems: ReadonlyMap<string, string>;
}

/**
 * Reads the delivery adapters' settings (`approvals.webhook`, `approvals.slack`; spec 2 §2 passes
 * them to the adapter as they are). A channel whose settings are unusable gets a problem instead of
 * a sender; a channel named in `approvals` without an installed adapter too.
 */
export function planChannels(
  approvals: GatewayConfig["approvals"],
  environment: Readonly<Record<string, string | undefined>>,
): ChannelPlan {
  const senders: ChannelSender[] = [];
  const secrets = new Map<string, string>();
  const problems = new Map<string, string>();
  for (const [channel, raw] of Object.entries(approvals)) {
    if (NOT_CHANNELS.has(channel) || BUILT_IN.has(channel) || raw === undefined || raw === null) continue;
    if (channel !== "webhook" && channel !== "slack") {
      problems.set(channel, `no delivery adapter is installed for channel ${channel}`);
      continue;
    }
    const parsed = (channel === "webhook" ? webhookSchema : slackSchema).safeParse(raw);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      const where = first?.path.length ? `${first.path.join(".")}: ` : "";
      problems.set(channel, `approvals.${channel}: ${where}${first?.message ?? "invalid settings"}`);
      continue;
    }
    const settings = parsed.data;
    let secret: string | null = settings.signing_secret ?? null;
    if (settings.signing_secret_env !== undefined) {
      const fromEnv = environment[settings.signing_secret_env];
      if (fromEnv === undefined || fromEnv.length < 16) {
        problems.set(
          channel,
          `approvals.${channel}.signing_secret_env names ${settings.signing_secret_env}, which is unset or shorter than 16 characters`,
        );
        continue;
      }
      secret = fromEnv;
    }
    if (secret !== null) secrets.set(channel, secret);
    const timeoutMs = settings.timeout_s * 1000;
    senders.push(
      "url" in settings
        ? new WebhookSender({ url: settings.url, headers: settings.headers, secret, timeoutMs })
        : new SlackSender({ webhookUrl: settings.webhook_url, timeoutMs }),
    );
  }
  return { senders, secrets, problems };
}

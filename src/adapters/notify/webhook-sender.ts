import type { ApprovalNotice, ChannelSender, DeliveryOutcome } from "../../app/ports/approval-delivery.js";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../../app/ports/callback-verifier.js";
import { signBody } from "./hmac-signature.js";
import { deliverJson } from "./http-post.js";

export interface WebhookSettings {
  /** `approvals.webhook.url`: http(s) endpoint receiving each request as JSON. */
  readonly url: string;
  /** Extra request headers (an authorization header of the receiver, for instance). */
  readonly headers: Readonly<Record<string, string>>;
  /** Shared secret signing each notification (and verifying callbacks); null: unsigned. */
  readonly secret: string | null;
  readonly timeoutMs: number;
}

/**
 * The document a webhook receives (docs/approvals.md "webhook"): the approval object with its
 * redacted arguments, and where to answer.
 */
export function webhookDocument(notice: ApprovalNotice, nowSeconds: number): Record<string, unknown> {
  const { approval } = notice;
  const left = approval.state === "pending" ? Math.max(0, Math.ceil(approval.expires_at - nowSeconds)) : 0;
  return {
    type: "approval_requested",
    approval: { ...approval, expires_in_seconds: left },
    resolve: {
      rest: `/api/approvals/${encodeURIComponent(approval.approval_id)}/resolve`,
      callback: "/hooks/approvals",
    },
  };
}

/** Channel `webhook`: one signed JSON POST per attempt. */
export class WebhookSender implements ChannelSender {
  readonly channel = "webhook";

  constructor(
    private readonly settings: WebhookSettings,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {}

  async send(notice: ApprovalNotice): Promise<DeliveryOutcome> {
    const now = this.now();
    const body = JSON.stringify(webhookDocument(notice, now));
    const timestamp = String(Math.floor(now));
    const signed: Record<string, string> = this.settings.secret
      ? { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signBody(this.settings.secret, timestamp, body) }
      : {};
    return deliverJson(
      this.settings.url,
      body,
      { ...this.settings.headers, ...signed, "x-airlock-approval-id": notice.approval.approval_id },
      this.settings.timeoutMs,
    );
  }
}

import { type ErrorType, GatewayError } from "../errors.js";

/**
 * The messages of the approval routes' refusals (decisions "Approvals"). These routes use flat
 * bodies `{error: '<message>'}` (spec 1 §4): their catalogue types take the `message` REST shape.
 */
export const APPROVAL_MESSAGES = {
  badDecision: "decision must be 'approve' or 'deny'",
  notFound: "Approval not found",
  alreadyResolved: "Approval already resolved",
  expired: "Approval expired",
  noGate: "Approval service is not enabled",
} as const;

export interface ApprovalRefusalBody {
  readonly error: string;
  /** The approval's state, where the answer names it (409). */
  readonly state?: string;
}

type RefusalStatus = 400 | 401 | 404 | 409 | 422 | 503;

/** The catalogue type of each status an approval route refuses with (422: a field it does not take). */
const TYPE_OF: Readonly<Record<RefusalStatus, ErrorType>> = {
  400: "ApprovalRequestInvalid",
  401: "ApprovalSignatureInvalid",
  404: "ApprovalNotFound",
  409: "ApprovalConflict",
  422: "ApprovalRequestInvalid",
  503: "ApprovalServiceDisabled",
};

/** An approval route's refusal: a catalogue error whose REST body is `body`. */
export class ApprovalRefusal extends GatewayError {
  constructor(status: RefusalStatus, body: ApprovalRefusalBody) {
    const { error, ...rest } = body;
    super(TYPE_OF[status], error, rest, status);
  }

  /** The body the route answers with. */
  get body(): ApprovalRefusalBody {
    return { error: this.message, ...this.details };
  }
}

export const approvalNotFound = (): ApprovalRefusal =>
  new ApprovalRefusal(404, { error: APPROVAL_MESSAGES.notFound });

export const noApprovalGate = (): ApprovalRefusal =>
  new ApprovalRefusal(503, { error: APPROVAL_MESSAGES.noGate });

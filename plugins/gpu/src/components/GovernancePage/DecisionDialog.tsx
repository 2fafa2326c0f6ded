import Button from '@material-ui/core/Button';
import Checkbox from '@material-ui/core/Checkbox';
import Dialog from '@material-ui/core/Dialog';
import DialogActions from '@material-ui/core/DialogActions';
import DialogContent from '@material-ui/core/DialogContent';
import DialogTitle from '@material-ui/core/DialogTitle';
import FormControlLabel from '@material-ui/core/FormControlLabel';
import TextField from '@material-ui/core/TextField';
import Typography from '@material-ui/core/Typography';
import { useApi } from '@backstage/frontend-plugin-api';
import {
  ApprovalDecisionResponse,
  ApprovalListItem,
  describeOverage,
  formatUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ReactNode, useState } from 'react';
import { gpuApiRef } from '../../api';
import { ErrorText, errorMessage, useFieldErrorStyles } from '../common';
import { describeQuotaEffect } from './describeQuotaEffect';
import { describeRequest } from './describeRequest';

const MAX_COMMENT = 2000;

/** One term of the decision's summary and what it says (a `dt` and its `dd`). */
function SummaryEntry(props: {
  term: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <>
      <Typography component="dt" variant="subtitle2">
        {props.term}
      </Typography>
      <Typography
        component="dd"
        variant="body2"
        style={{ margin: 0 }}
        data-testid={props.testId}
      >
        {props.children}
      </Typography>
    </>
  );
}

/** Sentences one below the other. */
function Lines(props: { lines: string[] }) {
  return (
    <>
      {props.lines.map(line => (
        <span key={line} style={{ display: 'block' }}>
          {line}
        </span>
      ))}
    </>
  );
}

/**
 * Confirms an approval or rejection, with an optional comment; keeps the dialog open and shows why a call failed.
 * It says what is decided: the request, its monthly cost, what approving does to the team's quota of each pool and
 * to its budget, and what it grants beyond them (the approval's `overage`, computed live by `GET /approvals`).
 * Granting beyond quota or budget is an explicit choice: the checkbox is off, Approve stays disabled (saying why) until
 * it is checked when the overage is over quota, and `allowOverQuota: true` is sent only when it is checked.
 */
export function DecisionDialog(props: {
  approval: ApprovalListItem;
  decision: 'approve' | 'reject';
  onClose: () => void;
  onDecided: (result: ApprovalDecisionResponse) => void;
}) {
  const { approval, decision, onClose, onDecided } = props;
  const { overage, service } = approval;
  const approvalId = approval.id;
  const serviceName = service?.name ?? approval.serviceId;
  const gpuApi = useApi(gpuApiRef);
  const fieldErrors = useFieldErrorStyles();
  const [comment, setComment] = useState('');
  const [allowOverQuota, setAllowOverQuota] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string>();
  const tooLong = comment.length > MAX_COMMENT;
  // Beyond quota or budget, Approve waits for the explicit choice: without it the backend would refuse (409).
  const needsOverride =
    decision === 'approve' && !!overage?.overQuota && !allowOverQuota;

  async function submit() {
    setSubmitting(true);
    setError(undefined);
    try {
      const result = await gpuApi.decideApproval(approvalId, decision, {
        ...(comment.trim() ? { comment: comment.trim() } : {}),
        ...(decision === 'approve' && allowOverQuota
          ? { allowOverQuota: true }
          : {}),
      });
      onDecided(result);
    } catch (e) {
      setError(errorMessage(e));
      setSubmitting(false);
    }
  }

  const verb = decision === 'approve' ? 'Approve' : 'Reject';
  return (
    <Dialog
      open
      onClose={submitting ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="gpu-decision-title"
    >
      <DialogTitle id="gpu-decision-title">
        {verb} {serviceName}
      </DialogTitle>
      <DialogContent className={fieldErrors.fields}>
        <Typography variant="body2" paragraph>
          {decision === 'approve'
            ? 'Approving holds the quota and deploys the service.'
            : 'Rejecting releases the quota the request was waiting for.'}
        </Typography>
        <dl data-testid="decision-summary" style={{ margin: '0 0 16px' }}>
          {service && (
            <SummaryEntry term="Request">
              {approval.kind === 'change' ? 'Change: ' : ''}
              {describeRequest(service)} (team {approval.team})
            </SummaryEntry>
          )}
          <SummaryEntry term="Why it needs approval" testId="decision-reasons">
            <Lines lines={approval.reasons.map(r => r.message)} />
          </SummaryEntry>
          <SummaryEntry term="Cost" testId="decision-cost">
            {overage
              ? `${formatUsd(overage.monthlyCostMicros)} a month`
              : `${service?.monthlyCost ?? 'unknown'} a month`}
          </SummaryEntry>
          {overage && (
            <>
              <SummaryEntry term="Quota effect" testId="decision-quota-effect">
                <Lines lines={describeQuotaEffect(overage)} />
              </SummaryEntry>
              <SummaryEntry term="Overage" testId="approval-overage">
                {overage.overQuota
                  ? describeOverage(overage)
                  : "None: it fits the team's quota and budget."}
              </SummaryEntry>
            </>
          )}
        </dl>
        <TextField
          id="gpu-decision-comment"
          label="Comment (optional)"
          value={comment}
          onChange={e => setComment(e.target.value)}
          error={tooLong}
          helperText={
            tooLong
              ? `At most ${MAX_COMMENT} characters (${comment.length} now)`
              : 'Recorded in the audit trail'
          }
          multiline
          minRows={2}
          fullWidth
          variant="outlined"
        />
        {decision === 'approve' && (
          <FormControlLabel
            control={
              <Checkbox
                checked={allowOverQuota}
                onChange={e => setAllowOverQuota(e.target.checked)}
                color="primary"
              />
            }
            label="Approve even if it does not fit the team's quota or budget"
          />
        )}
        {needsOverride && (
          <Typography
            variant="body2"
            id="gpu-decision-override-needed"
            data-testid="decision-override-needed"
          >
            This request does not fit the team's quota or budget: tick the box
            above to approve it anyway, or reject it.
          </Typography>
        )}
      </DialogContent>
      {/* Outside the content, which scrolls: a refusal shows beside the buttons, not below the dialog's fold. */}
      {error && (
        <ErrorText
          data-testid="decision-error"
          style={{ padding: '8px 24px 0' }}
        >
          {error}
        </ErrorText>
      )}
      <DialogActions>
        <Button onClick={onClose} disabled={submitting}>
          Cancel
        </Button>
        <Button
          onClick={submit}
          color={decision === 'approve' ? 'primary' : 'secondary'}
          variant="contained"
          disabled={submitting || tooLong || needsOverride}
          aria-describedby={
            needsOverride ? 'gpu-decision-override-needed' : undefined
          }
        >
          {verb}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

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
  ApprovalOverage,
  describeOverage,
} from '@internal/backstage-plugin-gpu-common';
import { useState } from 'react';
import { gpuApiRef } from '../../api';
import { errorMessage } from '../common';

const MAX_COMMENT = 2000;

/**
 * Confirms an approval or rejection, with an optional comment; keeps the dialog open and shows why a call failed.
 * Granting beyond quota or budget is an explicit choice: the checkbox is off, and `allowOverQuota: true` is sent only
 * when it is checked; what that would grant (the approval's `overage`) is shown next to it.
 */
export function DecisionDialog(props: {
  approvalId: string;
  serviceName: string;
  decision: 'approve' | 'reject';
  overage?: ApprovalOverage;
  onClose: () => void;
  onDecided: (result: ApprovalDecisionResponse) => void;
}) {
  const { approvalId, serviceName, decision, overage, onClose, onDecided } =
    props;
  const gpuApi = useApi(gpuApiRef);
  const [comment, setComment] = useState('');
  const [allowOverQuota, setAllowOverQuota] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string>();
  const tooLong = comment.length > MAX_COMMENT;

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
    >
      <DialogTitle>
        {verb} {serviceName}
      </DialogTitle>
      <DialogContent>
        <Typography variant="body2" paragraph>
          {decision === 'approve'
            ? 'Approving holds the quota and deploys the service.'
            : 'Rejecting releases the quota the request was waiting for.'}
        </Typography>
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
        {decision === 'approve' && overage?.overQuota && (
          <Typography
            variant="body2"
            color="textSecondary"
            data-testid="approval-overage"
          >
            Beyond quota or budget: {describeOverage(overage)}
          </Typography>
        )}
        {error && (
          <Typography color="error" role="alert">
            {error}
          </Typography>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={submitting}>
          Cancel
        </Button>
        <Button
          onClick={submit}
          color={decision === 'approve' ? 'primary' : 'secondary'}
          variant="contained"
          disabled={submitting || tooLong}
        >
          {verb}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

import { WarningPanel } from '@backstage/core-components';
import {
  ClusterMissingObject,
  ClusterPodStatus,
  ClusterWarning,
  GpuServiceDetail,
  ServiceClusterStatus,
  ServiceReason,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Chip from '@material-ui/core/Chip';
import Grid from '@material-ui/core/Grid';
import List from '@material-ui/core/List';
import ListItem from '@material-ui/core/ListItem';
import ListItemText from '@material-ui/core/ListItemText';
import Table from '@material-ui/core/Table';
import TableBody from '@material-ui/core/TableBody';
import TableCell from '@material-ui/core/TableCell';
import TableHead from '@material-ui/core/TableHead';
import TableRow from '@material-ui/core/TableRow';
import Typography from '@material-ui/core/Typography';
import { makeStyles } from '@material-ui/core/styles';
import CheckCircleOutline from '@material-ui/icons/CheckCircleOutline';
import ErrorOutline from '@material-ui/icons/ErrorOutline';
import HourglassEmpty from '@material-ui/icons/HourglassEmpty';
import RemoveCircleOutline from '@material-ui/icons/RemoveCircleOutline';
import Schedule from '@material-ui/icons/Schedule';
import { ReactElement } from 'react';
import { formatAge, useNow } from '../common';
import {
  describeAdmission,
  describePodPhase,
  describeReplicas,
  kueueMessageInWords,
  statusLabel,
} from './describeClusterStatus';
import { Figure } from './Figure';
import { ServiceConditions } from './ServiceConditions';
import { SERVICE_POLL_INTERVAL_MS } from './useGpuServiceData';

/** Pods and warnings listed before "and N more". */
const LIST_LIMIT = 5;

const useStyles = makeStyles(theme => ({
  ready: { color: theme.palette.success.main },
  waiting: { color: theme.palette.warning.main },
  failed: { color: theme.palette.error.main },
  table: { '& td, & th': { paddingLeft: 0 } },
  // At narrow widths the pod table scrolls sideways instead of breaking pod names, nodes and phases mid-word.
  podScroll: { overflowX: 'auto' },
  podCell: { '& td, & th': { whiteSpace: 'nowrap' } },
  // Event messages carry long unbroken tokens (object names, URLs): they wrap inside the card, never past its edge.
  warningText: { overflowWrap: 'anywhere', wordBreak: 'normal' },
}));

type Tone = 'ready' | 'waiting' | 'failed' | 'neutral';

function toneOf(status: ServiceStatus): Tone {
  switch (status) {
    case 'ready':
      return 'ready';
    case 'applying':
    case 'starting':
      return 'waiting';
    case 'failed':
      return 'failed';
    default:
      return 'neutral';
  }
}

function iconOf(status: ServiceStatus, className?: string): ReactElement {
  switch (toneOf(status)) {
    case 'ready':
      return <CheckCircleOutline className={className} />;
    case 'waiting':
      return <HourglassEmpty className={className} />;
    case 'failed':
      return <ErrorOutline className={className} />;
    default:
      return status === 'deleting' || status === 'deleted' ? (
        <RemoveCircleOutline className={className} />
      ) : (
        <Schedule className={className} />
      );
  }
}

/** The service's status in words with an icon (the words carry the meaning; the colour only repeats it). */
export function ServiceStatusChip(props: {
  status: ServiceStatus;
  reason?: ServiceReason;
}) {
  const classes = useStyles();
  const tone = toneOf(props.status);
  return (
    <Chip
      variant="outlined"
      size="small"
      icon={iconOf(
        props.status,
        tone === 'neutral' ? undefined : classes[tone],
      )}
      label={statusLabel(props.status, props.reason)}
      data-testid="cluster-status-chip"
    />
  );
}

function PodTable(props: { pods: ClusterPodStatus[]; idPrefix: string }) {
  const classes = useStyles();
  const { pods } = props;
  const headingId = `${props.idPrefix}-pods-heading`;
  const shown = pods.slice(0, LIST_LIMIT);
  return (
    <Box mt={1} data-testid="cluster-pods">
      <Typography variant="subtitle2" id={headingId}>
        Pods ({pods.length})
      </Typography>
      {pods.length === 0 ? (
        <Typography variant="body2" color="textSecondary">
          No pod yet.
        </Typography>
      ) : (
        <Box
          className={classes.podScroll}
          role="region"
          aria-labelledby={headingId}
          tabIndex={0}
          data-testid="cluster-pods-scroll"
        >
          <Table
            size="small"
            aria-labelledby={headingId}
            className={`${classes.table} ${classes.podCell}`}
          >
            <TableHead>
              <TableRow>
                <TableCell>Pod</TableCell>
                <TableCell>Node</TableCell>
                {pods.some(pod => pod.devices) && (
                  <TableCell>GPU device</TableCell>
                )}
                <TableCell>Phase</TableCell>
                <TableCell>Ready</TableCell>
                <TableCell align="right">Restarts</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {shown.map(pod => (
                <TableRow key={pod.name}>
                  <TableCell>
                    <code>{pod.name}</code>
                  </TableCell>
                  <TableCell>
                    {pod.node ?? (
                      <Typography
                        variant="body2"
                        color="textSecondary"
                        component="span"
                      >
                        not scheduled
                        {pod.schedulingGates.length > 0 &&
                          ` (gated by ${pod.schedulingGates.join(', ')})`}
                      </Typography>
                    )}
                  </TableCell>
                  {pods.some(p => p.devices) && (
                    <TableCell>
                      {pod.devices?.map(d => (
                        <div key={`${d.claim}/${d.device}`}>
                          <code>{d.device}</code> on {d.pool}
                        </div>
                      )) ?? (
                        <Typography
                          variant="body2"
                          color="textSecondary"
                          component="span"
                        >
                          not allocated
                        </Typography>
                      )}
                    </TableCell>
                  )}
                  <TableCell title={pod.message}>
                    {describePodPhase(pod)}
                  </TableCell>
                  <TableCell>{pod.ready ? 'yes' : 'no'}</TableCell>
                  <TableCell align="right">{pod.restarts}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      )}
      {pods.length > shown.length && (
        <Typography variant="caption" color="textSecondary" component="div">
          and {pods.length - shown.length} more
        </Typography>
      )}
    </Box>
  );
}

function WarningList(props: { warnings: ClusterWarning[]; idPrefix: string }) {
  const classes = useStyles();
  const { warnings } = props;
  // "last 3 minutes ago" keeps up with the clock while the card stays open, polled or not.
  const now = useNow();
  const headingId = `${props.idPrefix}-warnings-heading`;
  const shown = warnings.slice(0, LIST_LIMIT);
  return (
    <Box mt={1} data-testid="cluster-warnings">
      <Typography variant="subtitle2" id={headingId}>
        Recent warnings ({warnings.length})
      </Typography>
      <List dense disablePadding aria-labelledby={headingId}>
        {shown.map((w, i) => (
          <ListItem
            key={`${w.object.kind}/${w.object.name}/${w.reason}/${i}`}
            disableGutters
          >
            <ListItemText
              primary={
                <Typography variant="body2" className={classes.warningText}>
                  <strong>{w.reason}</strong> on {w.object.kind}{' '}
                  <code>{w.object.name}</code>: {w.message}
                </Typography>
              }
              secondary={`${w.count} time${w.count === 1 ? '' : 's'}${
                w.lastSeen ? `, last ${formatAge(w.lastSeen, now)}` : ''
              }`}
            />
          </ListItem>
        ))}
      </List>
      {warnings.length > shown.length && (
        <Typography variant="caption" color="textSecondary" component="div">
          and {warnings.length - shown.length} more
        </Typography>
      )}
    </Box>
  );
}

/** Objects of the service's manifests its cluster does not have (applied again while the service is starting or ready). */
function MissingList(props: {
  missing: ClusterMissingObject[];
  idPrefix: string;
}) {
  const { missing } = props;
  const headingId = `${props.idPrefix}-missing-heading`;
  return (
    <Box mt={1} data-testid="cluster-missing">
      <Typography variant="subtitle2" id={headingId}>
        Missing from the cluster ({missing.length})
      </Typography>
      <List dense disablePadding aria-labelledby={headingId}>
        {missing.map(m => (
          <ListItem
            key={`${m.apiVersion}/${m.kind}/${m.namespace ?? ''}/${m.name}`}
            disableGutters
          >
            <ListItemText
              primary={
                <Typography variant="body2">
                  {m.kind}{' '}
                  <code>
                    {m.namespace ? `${m.namespace}/` : ''}
                    {m.name}
                  </code>
                </Typography>
              }
            />
          </ListItem>
        ))}
      </List>
    </Box>
  );
}

function ClusterFacts(props: {
  clusterStatus: ServiceClusterStatus;
  idPrefix: string;
}) {
  const { deployment, admission, pods, warnings, missing } =
    props.clusterStatus;
  const replicas = deployment ? describeReplicas(deployment) : undefined;
  const kueue = admission ? describeAdmission(admission) : undefined;
  return (
    <>
      <Grid container spacing={2}>
        {replicas && (
          <Grid item xs={12} sm={4}>
            <Figure
              testId="cluster-replicas"
              label="Replicas available"
              value={replicas.value}
              caption={replicas.caption}
            />
          </Grid>
        )}
        {kueue && (
          <Grid item xs={12} sm={8}>
            <Figure
              testId="cluster-admission"
              label="Kueue admission"
              value={kueue.value}
              caption={kueue.caption}
            />
          </Grid>
        )}
      </Grid>
      {missing && missing.length > 0 && (
        <MissingList missing={missing} idPrefix={props.idPrefix} />
      )}
      {pods && <PodTable pods={pods} idPrefix={props.idPrefix} />}
      {warnings && warnings.length > 0 && (
        <WarningList warnings={warnings} idPrefix={props.idPrefix} />
      )}
    </>
  );
}

/**
 * "In the cluster": the status in words and what the cluster reports live (replicas available, Kueue admission,
 * objects of its manifests missing, pods with their node and phase, recent Warning events), or that the cluster could
 * not be read and the status is the last one stored. Only for services in apply mode (those with `clusterStatus`).
 */
export function ClusterStatusSection(props: {
  service: GpuServiceDetail;
  clusterStatus: ServiceClusterStatus;
  polling: boolean;
}) {
  const { service, clusterStatus, polling } = props;
  // Ids unique per service, for headings that label their section, table and list.
  const idPrefix = `gpu-cluster-${service.id}`;
  // A ready service is not polled: "read 2 minutes ago" keeps up with the clock instead of staying "just now".
  const now = useNow();
  const read = clusterStatus.error
    ? `Cluster ${clusterStatus.cluster}, read attempted ${formatAge(
        clusterStatus.observedAt,
        now,
      )}`
    : `Cluster ${clusterStatus.cluster}, read ${formatAge(
        clusterStatus.observedAt,
        now,
      )}`;
  return (
    <Box
      component="section"
      aria-labelledby={`${idPrefix}-heading`}
      data-testid="cluster-status"
    >
      <Typography variant="subtitle2" id={`${idPrefix}-heading`}>
        In the cluster
      </Typography>
      <Typography
        variant="caption"
        color="textSecondary"
        component="div"
        data-testid="cluster-status-observed"
      >
        {read}
        {polling &&
          ` · refreshes every ${
            SERVICE_POLL_INTERVAL_MS / 1000
          } s while it is ${service.status}`}
      </Typography>
      <Box role="status" mt={1} mb={1}>
        <ServiceStatusChip status={service.status} reason={service.reason} />
        {service.status !== 'ready' && service.statusReason && (
          <Typography
            variant="body2"
            data-testid="cluster-status-reason"
            component="div"
          >
            {kueueMessageInWords(service.statusReason)}
          </Typography>
        )}
        <ServiceConditions conditions={service.conditions ?? []} />
      </Box>
      {clusterStatus.error ? (
        <WarningPanel
          defaultExpanded
          severity="warning"
          title="The cluster could not be read"
          message={`The status shown is the last one stored, not what the cluster says now. ${clusterStatus.error}.`}
        />
      ) : (
        <ClusterFacts clusterStatus={clusterStatus} idPrefix={idPrefix} />
      )}
    </Box>
  );
}

import Button from '@material-ui/core/Button';
import ExpandLess from '@material-ui/icons/ExpandLess';
import ExpandMore from '@material-ui/icons/ExpandMore';
import { ReactNode, useState } from 'react';

/**
 * A disclosure in a table cell: a small button (reached by Tab, toggled with Enter or Space, `aria-expanded`) that
 * shows the whole text of a row's reasons in place, wrapped to the column, and hides it again. The row stays a line
 * or two high until someone asks why, and nobody needs a hover or a dialog to read a reason to its end.
 *
 * `label` is the button's visible text; `subject` names the row for screen readers (`Full reasons for big-summariser`);
 * `id` is unique on the page (the row's id: the plugin supports React 16 and 17, which have no `useId`).
 */
export function ReasonDetails(props: {
  id: string;
  label: string;
  subject: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const id = `gpu-reason-details-${props.id}`;
  return (
    <>
      <Button
        size="small"
        color="primary"
        aria-expanded={open}
        aria-controls={id}
        aria-label={`${props.label} for ${props.subject}`}
        endIcon={open ? <ExpandLess /> : <ExpandMore />}
        onClick={() => setOpen(!open)}
        style={{ padding: '0 4px', marginLeft: -4, whiteSpace: 'nowrap' }}
      >
        {props.label}
      </Button>
      <div
        id={id}
        hidden={!open}
        style={{ whiteSpace: 'normal', overflowWrap: 'anywhere' }}
      >
        {props.children}
      </div>
    </>
  );
}

import Button, { ButtonProps } from '@material-ui/core/Button';
import { makeStyles } from '@material-ui/core/styles';

const useStyles = makeStyles(theme => {
  // The theme's secondary colour (#FF88B2 in Backstage's light theme) has 2.2:1 contrast on white and error.main
  // 3.7:1, below WCAG AA's 4.5:1 for text; error.dark has 5:1 (error.light on a dark background).
  const red =
    theme.palette.type === 'dark'
      ? theme.palette.error.light
      : theme.palette.error.dark;
  // Doubled class: Button's own colour rules have the same specificity and may come later in the page.
  return { root: { '&&': { color: red, borderColor: red } } };
});

/**
 * An outlined button for an action that ends something (reject a request, decommission a service), in a red readable
 * on the page: WCAG AA contrast in the light and dark themes.
 */
export function DestructiveButton(
  props: Omit<ButtonProps, 'color' | 'variant'>,
) {
  const classes = useStyles();
  const { className, ...rest } = props;
  return (
    <Button
      variant="outlined"
      {...rest}
      className={className ? `${classes.root} ${className}` : classes.root}
    />
  );
}

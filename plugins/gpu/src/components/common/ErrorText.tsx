import { makeStyles } from '@material-ui/core/styles';
import Typography, { TypographyProps } from '@material-ui/core/Typography';

/**
 * Red text readable on the page, for any text said in the error colour (an over-budget figure, a "Not allowed"
 * verdict), not only alerts: `Typography color="error"` is the theme's error.main (#f44336), 3.7:1 on white, below
 * WCAG AA's 4.5:1 for text; error.dark has 5:1 (error.light on a dark background).
 */
export const useErrorColorStyles = makeStyles(theme => ({
  error: {
    color:
      theme.palette.type === 'dark'
        ? theme.palette.error.light
        : theme.palette.error.dark,
  },
}));

/**
 * For a dialog's content: the error state of its text fields (label and helper text) in the same readable red as
 * {@link ErrorText}, instead of the theme's error.main (3.7:1 on white).
 */
export const useFieldErrorStyles = makeStyles(theme => ({
  fields: {
    '& label.Mui-error, & p.Mui-error': {
      color:
        theme.palette.type === 'dark'
          ? theme.palette.error.light
          : theme.palette.error.dark,
    },
  },
}));

/** An error said in text (an alert), in a red readable on the page: WCAG AA contrast in the light and dark themes. */
export function ErrorText(props: Omit<TypographyProps, 'color'>) {
  const classes = useErrorColorStyles();
  const { className, ...rest } = props;
  return (
    <Typography
      role="alert"
      variant="body2"
      {...rest}
      className={className ? `${classes.error} ${className}` : classes.error}
    />
  );
}

/**
 * An input the parser refuses: its message, in words about the input, becomes the task's error;
 * `detail` (a library's own message) goes to the log only.
 */
export class ParseError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message)
  }
}

// The one way untrusted text (agent failures, step reasons, questions, transcripts) reaches a
// terminal: its control characters could write the clipboard (OSC 52), change the window
// title, erase lines or move the cursor. They are shown as `^[`-style escapes; newlines and
// tabs stay, a carriage return goes. The CLI's output functions (cli/io.ts) and the local
// progress display (hosts/local/progress.ts) pass everything they print through it.

export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => (c === '\r' ? '' : `^${String.fromCharCode((c.charCodeAt(0) + 64) & 0x7f)}`));
}

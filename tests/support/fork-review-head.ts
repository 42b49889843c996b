// The head of the `forks: review` workflows the fork tests run, alone in a file so that unit
// tests of the manifest take it without the emulator and harness the fork fixtures import.

/** The `name`, `on` and `agents` of a `forks: review` workflow: the tests add its steps. */
export const FORK_REVIEW_HEAD = `name: fork-review
on:
  pull_request:
    forks: review
    authors: [any]
agents:
  reviewer: { uses: claude-code }
`;

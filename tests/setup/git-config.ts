// The suite runs as on a machine with no git configuration and no identity: no user name or
// e-mail, no commit signing, no hooks path, no default-branch name of the developer's. Tests
// and the processes they start (baton, the emulator, its Actions runner) inherit this, so a
// commit that only works because the machine names someone fails here, on every machine,
// and not only on a fresh clone or a CI runner. Every commit's identity comes from the code
// that makes it (GIT_AUTHOR_* or `-c user.*` it passes, or baton's own fallback), as it must
// for a user who has none.
process.env.GIT_CONFIG_NOSYSTEM = '1';
process.env.GIT_CONFIG_GLOBAL = '/dev/null';
// Identity from the environment (EMAIL is git's last resort for the address).
for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL']) delete process.env[name];

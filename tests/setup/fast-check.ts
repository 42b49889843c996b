// Property tests explore new random cases on every developer run, which is how they find
// bugs; CI replays one fixed seed so that a green main stays green. Set FC_SEED to replay
// the seed a failing run printed.
import fc from 'fast-check';

const seed = process.env.FC_SEED ?? (process.env.CI ? '20261125' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });

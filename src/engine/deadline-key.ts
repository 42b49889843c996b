/** The key of a deadline notice ends so: `baton status` tells it from other replies by it (hosts/github/skip-notices.ts). */
export const DEADLINE_KEY_SUFFIX = '/deadline';

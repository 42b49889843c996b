// Entry point of the bundled Action (dist/action.js): nothing but the call.
import { main } from './main.ts';

await main();

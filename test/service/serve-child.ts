// Runs `zlake serve` with the given arguments (for tests that kill it).
// Run through spawnTs, whose bootstrap leaves the arguments from argv[1].
import { main } from '../../src/cli/main';

void main(['serve', ...process.argv.slice(1)]);

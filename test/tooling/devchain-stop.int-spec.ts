// startDevchain().stop() leaves its caller no child process and no pipe: a jest worker still holding
// one when its last test file ends cannot exit by itself, and jest force-exits it ("A worker process
// has failed to exit gracefully", issue #36). stop() used to return on Anvil's 'exit', with Anvil's
// stdout/stderr pipes and its watchdog (process and stdin pipe) still open.
import { startDevchain } from '../../scripts/lib/devchain.js';

const count = (type: string) => process.getActiveResourcesInfo().filter((t) => t === type).length;
const childHandles = () => ({ processes: count('ProcessWrap'), pipes: count('PipeWrap') });

it('stop() returns once Anvil and its watchdog have exited and their pipes are closed', async () => {
  const before = childHandles();
  const devchain = await startDevchain();
  // Anvil and its watchdog.
  expect(childHandles().processes).toBe(before.processes + 2);
  await devchain.stop();
  expect(childHandles()).toEqual(before);
}, 120_000);

/**
 * A reader in its own process for test/slow/flood.slow.ts: GETs one URL in a
 * loop, one request at a time, until its standard input closes, then prints
 * the latencies (ms) as a JSON array. Its own process, so the flood clients
 * of the test do not share its event loop and the figures are the server's.
 *
 *   bun test/slow/page-reader.ts <url>
 */
const [url] = process.argv.slice(2);
if (!url) throw new Error('usage: bun test/slow/page-reader.ts <url>');

let stopped = false;
void (async () => {
  for await (const _ of Bun.stdin.stream());
  stopped = true;
})();

const latencies: number[] = [];

export {};

while (!stopped) {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  latencies.push(performance.now() - started);
}
console.log(JSON.stringify(latencies));
